import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../stores/sql/sql-dialect.js';
import { type Order, toOrder } from './order.js';
import type { OrderStatus } from './order-status.js';
import { ORDERS_TABLE, type PaymentsDatabase } from './payments-tables.js';

/**
 * Locks the order row for the rest of the transaction and reads it (`null` if absent). PostgreSQL/MySQL:
 * `SELECT … FOR UPDATE`. SQLite has no row locks: a no-op UPDATE takes the database write lock first (which
 * also keeps two connections from deadlocking on a read-lock upgrade). Every payments transaction locks the
 * order BEFORE any attempt row, so they cannot deadlock on each other.
 */
export async function lockOrder(
  db: Kysely<PaymentsDatabase>,
  dialect: SqlDialect,
  orderId: string,
): Promise<Order | null> {
  const sqlite = dialect.name === 'sqlite';
  if (sqlite) {
    await db.updateTable(ORDERS_TABLE).set({ updated_at: sql<number>`updated_at` }).where('id', '=', orderId).execute();
  }
  const row = await db
    .selectFrom(ORDERS_TABLE)
    .selectAll()
    .where('id', '=', orderId)
    .$if(!sqlite, (query) => query.forUpdate())
    .executeTakeFirst();
  return row ? toOrder(row) : null;
}

/** Sets the order's status (and `paid_attempt_id` when given); the caller has checked the transition. */
export async function setOrderStatus(
  db: Kysely<PaymentsDatabase>,
  orderId: string,
  status: OrderStatus,
  nowMs: number,
  paidAttemptId?: string,
): Promise<void> {
  await db
    .updateTable(ORDERS_TABLE)
    .set({ status, updated_at: nowMs, ...(paidAttemptId === undefined ? {} : { paid_attempt_id: paidAttemptId }) })
    .where('id', '=', orderId)
    .execute();
}
