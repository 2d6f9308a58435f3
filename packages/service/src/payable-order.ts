import type { Transaction } from 'kysely';
import type { Order } from 'payonce/internal/payments/order.js';
import type { ServiceContext } from './service-context.js';

/** The only currency Payme, Click and Uzum charge: Uzbek sum, amounts in tiyin (1 sum = 100 tiyin), the order's minor units. */
export const UZS = 'UZS';

/** The order statuses a local provider's payment may start on: not yet paid, cancelled or refunded. */
const PAYABLE = new Set(['draft', 'awaiting_payment']);

/**
 * The service order `orderId` names, locked in the provider call's transaction `trx`, when `provider` may pay it:
 * in `UZS`, `draft` or `awaiting_payment`, and with no active attempt of another provider (one active attempt per
 * order, across Stripe checkout, Payme, Click and Uzum). `null` otherwise (no such order, paid, another currency,
 * a payment of another provider under way), which each engine answers with its "no such account" error.
 * @see docs/service.md "Payme, Click and Uzum"; docs/design.md §6 (one active attempt per order).
 */
export async function lockPayableOrder(
  ctx: ServiceContext,
  trx: Transaction<unknown>,
  orderId: string | null,
  provider: string,
): Promise<Order | null> {
  const locked = orderId === null ? null : await ctx.payments.lockOrderIn(trx, orderId);
  if (locked === null) return null;
  const { order, activeAttempt } = locked;
  if (order.currency !== UZS || !PAYABLE.has(order.status)) return null;
  if (activeAttempt !== null && activeAttempt.provider !== provider) return null;
  return order;
}
