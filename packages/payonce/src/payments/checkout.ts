import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import { isStoredId } from '../core/stored-id.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import type { TraceCarrier } from '../otel/trace-context.js';
import { insertUnlessDuplicate } from '../outbox/insert-unless-duplicate.js';
import { transaction } from '../outbox/sql-transaction.js';
import { findActiveAttempt, findAttempt } from './attempt-rows.js';
import { recordAttemptTrace } from './attempt-trace.js';
import { checkMoney, type Money } from './money.js';
import { type Order, toOrder } from './order.js';
import { OrderIdTaken } from './order-id-taken.js';
import { OrderNotFound } from './order-not-found.js';
import { OrderNotPayable } from './order-not-payable.js';
import { lockOrder, writeOrderStatus } from './order-rows.js';
import { nextOrderStatus, PAID_ORDER_STATUSES } from './order-status.js';
import { ATTEMPT_KEY_PREFIX, type PaymentAttempt, toAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import { type PaymentsContext, paymentsDb, paymentsTrx } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE } from './payments-tables.js';
import { createRequestOf, emptyFields, errorText, fieldsOf, recordProviderAnswer } from './provider-answer.js';
import { ProviderDeclined } from './provider-declined.js';

/**
 * The answer of `openCheckout`: the order is already paid (nothing created; `paidAttempt` is the attempt that
 * paid it, read in the same transaction, `null` only for an order paid without one), or THE active attempt — the one
 * this call created (`created: true`, after the provider answered) or the one another call created (`created:
 * false`, as stored now; it may still be `creating`) — with its `order` as the transaction that last wrote or read
 * them left it (the provider's answer may have paid it).
 */
export type CheckoutResult =
  | { readonly kind: 'already-paid'; readonly order: Order; readonly paidAttempt: PaymentAttempt | null }
  | { readonly kind: 'attempt'; readonly attempt: PaymentAttempt; readonly created: boolean; readonly order: Order };

/** Options of `Payments.createOrder`. */
export interface CreateOrderOptions {
  /**
   * The order's id, chosen by the caller (e.g. the id a provider's `account` names): 1–64 characters of
   * `A–Z a–z 0–9 . _ : -`. Absent: a random UUID.
   */
  readonly id?: string;
}

/** A caller-chosen order id: 1–64 characters of letters, digits, `.`, `_`, `:` and `-`. */
const ORDER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** See `Payments.createOrder`; with `trx` the row is written in the caller's open transaction. */
export async function createOrder<DB>(
  ctx: PaymentsContext<DB>,
  principal: string,
  money: Money,
  trx?: Transaction<DB>,
  options: CreateOrderOptions = {},
): Promise<Order> {
  const { amountMinor, currency } = checkMoney(money);
  if (typeof principal !== 'string' || principal.length === 0 || principal.length > 160) {
    throw new InvalidOption('principal', 'must be a non-empty string of at most 160 characters');
  }
  const chosen = options?.id;
  if (chosen !== undefined && (typeof chosen !== 'string' || !ORDER_ID.test(chosen))) {
    throw new InvalidOption('id', 'must be 1-64 characters of letters, digits, ".", "_", ":" and "-"');
  }
  const now = ctx.clock.now();
  const row = {
    id: chosen ?? randomUUID(),
    principal,
    status: 'draft',
    amount_minor: amountMinor,
    currency,
    paid_attempt_id: null,
    created_at: now,
    updated_at: now,
  };
  const db = trx === undefined ? paymentsDb(ctx) : paymentsTrx(ctx, trx);
  if (chosen === undefined) {
    await db.insertInto(ORDERS_TABLE).values(row).execute();
    return toOrder(row);
  }
  if (await insertUnlessDuplicate(ctx.store.dialect, db.insertInto(ORDERS_TABLE).values(row))) return toOrder(row);
  const existing = await db.selectFrom(ORDERS_TABLE).selectAll().where('id', '=', chosen).executeTakeFirst();
  const order = existing === undefined ? null : toOrder(existing);
  if (
    order === null ||
    order.principal !== principal ||
    order.amountMinor !== amountMinor ||
    order.currency !== currency
  ) {
    throw new OrderIdTaken(chosen);
  }
  return order;
}

/** Step 1 of the checkout: one short transaction finds the order's active attempt or inserts one `creating`. */
async function openAttempt<DB>(
  ctx: PaymentsContext<DB>,
  orderId: string,
  principal: string,
  carrier: TraceCarrier | null,
): Promise<CheckoutResult> {
  return transaction(ctx.store, async (trx): Promise<CheckoutResult> => {
    const on = paymentsSql(ctx, trx);
    const order = await lockOrder(on, orderId);
    if (!order || order.principal !== principal) throw new OrderNotFound(orderId);
    if (PAID_ORDER_STATUSES.includes(order.status)) {
      const paidAttempt = order.paidAttemptId === null ? null : await findAttempt(on, order.paidAttemptId);
      return { kind: 'already-paid', order, paidAttempt };
    }
    if (order.status === 'cancelled' || order.status === 'refunded') throw new OrderNotPayable(orderId, order.status);
    const active = await findActiveAttempt(on, orderId);
    if (active) return { kind: 'attempt', attempt: active, created: false, order };
    const now = ctx.clock.now();
    const id = randomUUID();
    const row = {
      id,
      order_id: orderId,
      provider: ctx.provider.name,
      status: 'creating',
      amount_minor: order.amountMinor,
      currency: order.currency,
      idempotency_key: `${ATTEMPT_KEY_PREFIX}${id}`,
      provider_payment_id: null,
      action_url: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    if (
      !(await insertUnlessDuplicate(ctx.store.dialect, (on.tables ?? on.db).insertInto(ATTEMPTS_TABLE).values(row)))
    ) {
      const winner = await findActiveAttempt(on, orderId);
      if (!winner) throw new Error(`attempt insert for order ${orderId} conflicted, but no active attempt exists`);
      return { kind: 'attempt', attempt: winner, created: false, order };
    }
    await recordAttemptTrace(on.tables ?? on.db, id, carrier);
    const awaiting =
      nextOrderStatus(order.status, 'awaiting_payment').kind === 'move'
        ? await writeOrderStatus(on, order, 'awaiting_payment', now)
        : order;
    return { kind: 'attempt', attempt: toAttempt(row), created: true, order: awaiting };
  });
}

/** Step 2: outside any transaction, asks the provider to create the payment; the answer as a report. */
async function askProvider<DB>(ctx: PaymentsContext<DB>, attempt: PaymentAttempt): Promise<PaymentReport> {
  const base = {
    provider: attempt.provider,
    eventId: `checkout:${attempt.id}`,
    eventType: 'checkout.response',
    orderRef: null,
    occurredAtMs: null,
  };
  const attributes = { [A.provider]: attempt.provider, [A.method]: 'createPayment', [A.attemptId]: attempt.id };
  return await inSpan('payonce.provider.call', { kind: 'client', attributes }, async (span) => {
    try {
      const payment = await ctx.provider.createPayment(createRequestOf(attempt));
      span.set('payonce.payment.status', payment.status);
      return { ...base, ...fieldsOf(payment), error: null };
    } catch (error) {
      const status = error instanceof ProviderDeclined ? 'failed' : 'unknown';
      span.set('payonce.payment.status', status);
      span.fail(errorText(error));
      return { ...base, ...emptyFields(attempt), status, error: errorText(error) };
    }
  });
}

/** See `Payments.openCheckout`. */
export async function openCheckout<DB>(
  ctx: PaymentsContext<DB>,
  orderId: string,
  principal: string,
): Promise<CheckoutResult> {
  if (!isStoredId(orderId)) throw new OrderNotFound(String(orderId));
  return await inSpan('payonce.payments.checkout', { attributes: { [A.orderId]: orderId } }, async (span) => {
    const opened = await openAttempt(ctx, orderId, principal, span.carrier());
    span.set(
      'payonce.checkout.result',
      opened.kind === 'already-paid' ? 'already-paid' : opened.created ? 'created' : 'existing',
    );
    if (opened.kind === 'already-paid' || !opened.created) return opened;
    span.set(A.attemptId, opened.attempt.id);
    const report = await askProvider(ctx, opened.attempt);
    const { attempt, order } = await recordProviderAnswer(ctx, opened.attempt, report);
    return { kind: 'attempt', attempt, created: true, order };
  });
}
