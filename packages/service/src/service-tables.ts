import type { ColumnType } from 'kysely';

type IntColumn = ColumnType<number | string | bigint, number, number>;

/**
 * One row of `payonce_service_fulfilments` (migration `0006-service-fulfilments`): one fulfilment actually
 * performed (what was shipped) for an order, by the outbox job `job_id`. Times are epoch ms UTC.
 */
export interface FulfilmentsTable {
  id: string;
  order_id: string;
  attempt_id: string | null;
  job_id: string | null;
  created_at: IntColumn;
}

/** One row of `payonce_service_refunds` (migration `0006-service-fulfilments`): a refund recorded for an order. */
export type RefundsTable = FulfilmentsTable;

/** Name of the service's fulfilment table: one row per fulfilment performed (a double fulfilment shows as two). */
export const FULFILMENTS_TABLE = 'payonce_service_fulfilments';
/** Name of the service's refund table: one row per refund recorded after a paid order was refunded. */
export const REFUNDS_TABLE = 'payonce_service_refunds';

/** The Kysely database type of the service's own tables. */
export interface ServiceDatabase {
  payonce_service_fulfilments: FulfilmentsTable;
  payonce_service_refunds: RefundsTable;
}
