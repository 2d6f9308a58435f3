import type { Selectable } from 'kysely';
import { intOf } from '../outbox/sql-transaction.js';
import type { OrderStatus } from './order-status.js';
import type { OrdersTable } from './payments-tables.js';

/** An order as stored. Money in integer minor units; times epoch ms UTC. @see docs/design.md §6. */
export interface Order {
  readonly id: string;
  /** Who may pay it (tenant / customer id); `openCheckout` checks it. */
  readonly principal: string;
  readonly status: OrderStatus;
  readonly amountMinor: number;
  readonly currency: string;
  /** The attempt whose success paid the order, or `null`. */
  readonly paidAttemptId: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** The frozen `Order` of a selected row. */
export function toOrder(row: Selectable<OrdersTable>): Order {
  return Object.freeze({
    id: row.id,
    principal: row.principal,
    status: row.status as OrderStatus,
    amountMinor: intOf(row.amount_minor, 'payonce_orders.amount_minor'),
    currency: row.currency,
    paidAttemptId: row.paid_attempt_id,
    createdAtMs: intOf(row.created_at, 'payonce_orders.created_at'),
    updatedAtMs: intOf(row.updated_at, 'payonce_orders.updated_at'),
  });
}
