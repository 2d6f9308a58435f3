import type { Transaction } from 'kysely';
import { isStoredId } from '../core/stored-id.js';
import { type JournalEntry, toJournalEntry } from './journal-entry.js';
import { type Order, toOrder } from './order.js';
import { OrderNotFound } from './order-not-found.js';
import { lockOrder, setOrderStatus } from './order-rows.js';
import { nextOrderStatus, type OrderStatus } from './order-status.js';
import { type PaymentAttempt, toAttempt } from './payment-attempt.js';
import { type PaymentsContext, paymentsDb } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE, PAYMENT_EVENTS_TABLE } from './payments-tables.js';
import type { Transition } from './transition.js';

/** See `Payments.advanceOrder`. */
export async function advanceOrder<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  orderId: string,
  to: OrderStatus,
): Promise<Transition<OrderStatus>> {
  if (!isStoredId(orderId)) throw new OrderNotFound(String(orderId));
  const on = paymentsSql(ctx, trx);
  const order = await lockOrder(on, orderId);
  if (!order) throw new OrderNotFound(orderId);
  const move = nextOrderStatus(order.status, to);
  if (move.kind === 'move') await setOrderStatus(on, orderId, to, ctx.clock.now());
  return move;
}

/** The order, or `null`. */
export async function findOrder<DB>(ctx: PaymentsContext<DB>, orderId: string): Promise<Order | null> {
  if (!isStoredId(orderId)) return null;
  const row = await paymentsDb(ctx).selectFrom(ORDERS_TABLE).selectAll().where('id', '=', orderId).executeTakeFirst();
  return row ? toOrder(row) : null;
}

/** Every attempt of the order, oldest first. */
export async function attemptsOf<DB>(ctx: PaymentsContext<DB>, orderId: string): Promise<PaymentAttempt[]> {
  if (!isStoredId(orderId)) return [];
  const rows = await paymentsDb(ctx)
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toAttempt);
}

/**
 * The journal of the order: every decided report, oldest first, and the parked reports that name the order
 * (`orderRef`, the order id the provider echoed) while no attempt matches them (a payment for an order with no
 * attempt of that provider: money an operator must see on the order).
 */
export async function journalOf<DB>(ctx: PaymentsContext<DB>, orderId: string): Promise<JournalEntry[]> {
  if (!isStoredId(orderId)) return [];
  const rows = await paymentsDb(ctx)
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('order_id', '=', orderId),
        eb.and([eb('decision', '=', 'parked'), eb('order_id', 'is', null), eb('order_ref', '=', orderId)]),
      ]),
    )
    .orderBy('received_at')
    .execute();
  return rows.map(toJournalEntry);
}

/** Parked (unmatched) events, oldest first, at most `limit`. */
export async function parkedEvents<DB>(ctx: PaymentsContext<DB>, limit: number): Promise<JournalEntry[]> {
  const rows = await paymentsDb(ctx)
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .selectAll()
    .where('decision', '=', 'parked')
    .orderBy('received_at')
    .limit(limit)
    .execute();
  return rows.map(toJournalEntry);
}
