import type { ColumnType } from 'kysely';

/** Name of the delivery journal table on every SQL backend (migration `0004-webhook-deliveries`). */
export const DELIVERIES_TABLE = 'payonce_webhook_deliveries';

/** A BIGINT/INT column: written as a number, read back as the driver returns it (`pg`: string; SQLite: maybe bigint). */
type IntColumn = ColumnType<number | string | bigint, number, number>;
type NullableIntColumn = ColumnType<number | string | bigint | null, number | null, number | null>;

/**
 * One row of `payonce_webhook_deliveries` as Kysely sees it; the columns mirror `DeliveryRecord` in snake case.
 * Exported so applications can add it to their own Kysely database type.
 */
export interface DeliveriesTable {
  id: string;
  received_at: IntColumn;
  provider: string;
  event_key: string | null;
  event_type: string | null;
  signature: string;
  decision: string;
  outcome: string;
  response_status: IntColumn;
  error: string | null;
  duration_ms: IntColumn;
  object_id: string | null;
  payment_id: string | null;
  merchant_reference: string | null;
  amount_minor: NullableIntColumn;
  currency: string | null;
  payload: string | null;
}

/** The Kysely database type holding only the delivery journal table. */
export interface DeliveriesDatabase {
  payonce_webhook_deliveries: DeliveriesTable;
}
