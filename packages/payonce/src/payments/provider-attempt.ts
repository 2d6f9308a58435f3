import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import { isStoredId } from '../core/stored-id.js';
import { insertUnlessDuplicate } from '../outbox/insert-unless-duplicate.js';
import { findActiveAttempt } from './attempt-rows.js';
import type { Order } from './order.js';
import { OrderNotFound } from './order-not-found.js';
import { OrderNotPayable } from './order-not-payable.js';
import { lockOrder, setOrderStatus } from './order-rows.js';
import { nextOrderStatus } from './order-status.js';
import { ATTEMPT_KEY_PREFIX, type PaymentAttempt, toAttempt } from './payment-attempt.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { ATTEMPTS_TABLE } from './payments-tables.js';

/** An order locked in the caller's transaction, with its active attempt (`null` when it has none). */
export interface LockedOrder {
  readonly order: Order;
  readonly activeAttempt: PaymentAttempt | null;
}

/** What names a payment the provider started: the provider's name and its id of the payment. */
export interface ProviderPaymentRef {
  /** Provider name, 1–64 characters (`payme`); the attempt's `provider`, matched by `applyProviderEvent`. */
  readonly provider: string;
  /** The provider's payment id (Payme's transaction id), 1–64 printable ASCII characters. */
  readonly paymentId: string;
}

/** See `Payments.lockOrderIn`. */
export async function lockOrderIn<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  orderId: string,
): Promise<LockedOrder | null> {
  if (!isStoredId(orderId)) return null;
  const on = paymentsSql(ctx, trx);
  const order = await lockOrder(on, orderId);
  if (order === null) return null;
  return Object.freeze({ order, activeAttempt: await findActiveAttempt(on, orderId) });
}

/** See `Payments.openProviderAttempt`. */
export async function openProviderAttempt<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  orderId: string,
  ref: ProviderPaymentRef,
): Promise<PaymentAttempt> {
  if (typeof ref?.provider !== 'string' || ref.provider === '' || ref.provider.length > 64) {
    throw new InvalidOption('provider', 'must be 1-64 characters');
  }
  if (!isStoredId(ref.paymentId)) throw new InvalidOption('paymentId', 'must be 1-64 printable ASCII characters');
  const locked = await lockOrderIn(ctx, trx, orderId);
  if (locked === null) throw new OrderNotFound(String(orderId));
  const { order, activeAttempt } = locked;
  const active = activeAttempt;
  if (active !== null && active.provider === ref.provider && active.providerPaymentId === ref.paymentId) return active;
  if (nextOrderStatus(order.status, 'paid').kind !== 'move' || active !== null) {
    throw new OrderNotPayable(order.id, order.status);
  }
  const now = ctx.clock.now();
  const id = randomUUID();
  const row = {
    id,
    order_id: order.id,
    provider: ref.provider,
    status: 'pending',
    amount_minor: order.amountMinor,
    currency: order.currency,
    idempotency_key: `${ATTEMPT_KEY_PREFIX}${id}`,
    provider_payment_id: ref.paymentId,
    action_url: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
  const on = paymentsSql(ctx, trx);
  if (!(await insertUnlessDuplicate(ctx.store.dialect, (on.tables ?? on.db).insertInto(ATTEMPTS_TABLE).values(row)))) {
    throw new OrderNotPayable(order.id, order.status);
  }
  if (nextOrderStatus(order.status, 'awaiting_payment').kind === 'move') {
    await setOrderStatus(on, order.id, 'awaiting_payment', now);
  }
  return toAttempt(row);
}
