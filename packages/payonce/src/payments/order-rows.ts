import { type Kysely, sql, type UpdateObject } from 'kysely';
import { type Order, toOrder } from './order.js';
import type { OrderStatus } from './order-status.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE, type PaymentsDatabase } from './payments-tables.js';
import { forgetPrelocked } from './prelocked-targets.js';

/** SQLite only: a no-op UPDATE of the order that takes the database write lock. */
const TOUCH_ORDER = paymentsStatement(['id'], (db, p) =>
  db.updateTable(ORDERS_TABLE).set({ updated_at: sql<number>`updated_at` }).where('id', '=', p.id),
);

/** The order read with `FOR UPDATE` (PostgreSQL, MySQL) or plainly after `TOUCH_ORDER` (SQLite). */
export const LOCK_ORDER = paymentsStatement(['id'], (db, p, dialect) =>
  db
    .selectFrom(ORDERS_TABLE)
    .selectAll()
    .where('id', '=', p.id)
    .$if(dialect.name !== 'sqlite', (query) => query.forUpdate()),
);

/**
 * PostgreSQL and MySQL: the order of the attempt that carries provider payment `paymentId`, read with `FOR UPDATE`
 * in the same statement that finds it (the attempt itself is read, not locked, by the subquery: both engines lock
 * only the outer statement's rows).
 */
export const LOCK_ORDER_OF_PAYMENT = paymentsStatement(['provider', 'paymentId'], (db, p) =>
  db
    .selectFrom(ORDERS_TABLE)
    .selectAll()
    .where('id', '=', (eb) =>
      eb
        .selectFrom(ATTEMPTS_TABLE)
        .select('order_id')
        .where('provider', '=', p.provider)
        .where('provider_payment_id', '=', p.paymentId),
    )
    .forUpdate(),
);

/** The update of order `id` to `set`; with `from`, only while the order is still in that status. */
function orderUpdate(
  db: Kysely<PaymentsDatabase>,
  id: string,
  set: UpdateObject<PaymentsDatabase, typeof ORDERS_TABLE>,
  from?: string,
) {
  const update = db.updateTable(ORDERS_TABLE).set(set).where('id', '=', id);
  return from === undefined ? update : update.where('status', '=', from);
}

const SET_ORDER_STATUS = paymentsStatement(['id', 'status', 'nowMs'], (db, p) =>
  orderUpdate(db, p.id, { status: p.status, updated_at: p.nowMs }),
);

const SET_ORDER_PAID_BY = paymentsStatement(['id', 'status', 'nowMs', 'paidAttemptId'], (db, p) =>
  orderUpdate(db, p.id, { status: p.status, updated_at: p.nowMs, paid_attempt_id: p.paidAttemptId }),
);

/** `SET_ORDER_STATUS` only while the order is still in status `from`. */
const MOVE_ORDER_STATUS = paymentsStatement(['id', 'from', 'status', 'nowMs'], (db, p) =>
  orderUpdate(db, p.id, { status: p.status, updated_at: p.nowMs }, p.from),
);

/** `SET_ORDER_PAID_BY` only while the order is still in status `from`. */
const MOVE_ORDER_PAID_BY = paymentsStatement(['id', 'from', 'status', 'nowMs', 'paidAttemptId'], (db, p) =>
  orderUpdate(db, p.id, { status: p.status, updated_at: p.nowMs, paid_attempt_id: p.paidAttemptId }, p.from),
);

/**
 * Moves `order` — as this transaction locked and read it, or last wrote it — to `status` (and `paid_attempt_id`
 * when given), as {@link setOrderStatus} does, but only if its row still has the status read: a payment's move
 * (paid, refunded) decided on that status must not overwrite another one. Every payonce path changes an order only
 * under its lock and reads it after taking the lock, so the row differs only when the transaction changed it by its
 * own SQL meanwhile (against the rule of a read ahead, `Payments.prelockProviderEvents`).
 * @throws {Error} the row's status is no longer `order.status` (the transaction then rolls back: nothing is moved).
 */
export async function moveOrderStatus(
  on: PaymentsSql,
  order: Order,
  status: OrderStatus,
  nowMs: number,
  paidAttemptId?: string,
): Promise<void> {
  const values = { id: order.id, from: order.status, status, nowMs };
  const result =
    paidAttemptId === undefined
      ? await runPaymentsStatement(on, MOVE_ORDER_STATUS, values)
      : await runPaymentsStatement(on, MOVE_ORDER_PAID_BY, { ...values, paidAttemptId });
  if (result.numAffectedRows !== undefined && result.numAffectedRows !== 1n) {
    throw new Error(
      `order ${order.id} is no longer ${order.status} under this transaction's lock: changed by a write payonce did ` +
        `not make; not moved to ${status}`,
    );
  }
}

/**
 * Locks the order row for the rest of the transaction and reads it (`null` if absent). PostgreSQL/MySQL:
 * `SELECT … FOR UPDATE`. SQLite has no row locks: a no-op UPDATE takes the database write lock first (which
 * also keeps two connections from deadlocking on a read-lock upgrade). Every payments transaction locks the
 * order BEFORE any attempt row, so they cannot deadlock on each other. Drops the targets locked ahead in this
 * transaction (`forgetPrelocked`).
 */
export async function lockOrder(on: PaymentsSql, orderId: string): Promise<Order | null> {
  forgetPrelocked(on); // this transaction may now change a row read ahead, by a path that does not see it
  if (on.statements.dialect.name === 'sqlite') await runPaymentsStatement(on, TOUCH_ORDER, { id: orderId });
  const row = (await runPaymentsStatement(on, LOCK_ORDER, { id: orderId })).rows[0];
  return row ? toOrder(row) : null;
}

/**
 * PostgreSQL and MySQL only: locks the order of the attempt carrying provider payment `paymentId`, as `lockOrder`
 * does, in one statement with finding it; `null` when no attempt carries that payment id.
 */
export async function lockOrderOfPayment(on: PaymentsSql, provider: string, paymentId: string): Promise<Order | null> {
  forgetPrelocked(on); // as `lockOrder`
  const row = (await runPaymentsStatement(on, LOCK_ORDER_OF_PAYMENT, { provider, paymentId })).rows[0];
  return row ? toOrder(row) : null;
}

/**
 * Sets the order's status (and `paid_attempt_id` when given) as {@link setOrderStatus} does, and returns `order` as
 * written: the same values a read of the row would return.
 */
export async function writeOrderStatus(
  on: PaymentsSql,
  order: Order,
  status: OrderStatus,
  nowMs: number,
  paidAttemptId?: string,
): Promise<Order> {
  await setOrderStatus(on, order.id, status, nowMs, paidAttemptId);
  return orderAsWritten(order, status, nowMs, paidAttemptId);
}

/** `order` as {@link setOrderStatus} with these values leaves its row (nothing is written). */
export function orderAsWritten(order: Order, status: OrderStatus, nowMs: number, paidAttemptId?: string): Order {
  return Object.freeze({
    ...order,
    status,
    updatedAtMs: nowMs,
    ...(paidAttemptId === undefined ? {} : { paidAttemptId }),
  });
}

/** Sets the order's status (and `paid_attempt_id` when given); the caller has checked the transition. */
export async function setOrderStatus(
  on: PaymentsSql,
  orderId: string,
  status: OrderStatus,
  nowMs: number,
  paidAttemptId?: string,
): Promise<void> {
  if (paidAttemptId === undefined) {
    await runPaymentsStatement(on, SET_ORDER_STATUS, { id: orderId, status, nowMs });
  } else {
    await runPaymentsStatement(on, SET_ORDER_PAID_BY, { id: orderId, status, nowMs, paidAttemptId });
  }
}
