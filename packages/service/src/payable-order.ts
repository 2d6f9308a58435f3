import type { Kysely, Transaction } from 'kysely';
import type { Order } from 'payonce/internal/payments/order.js';
import { PAID_ORDER_STATUSES } from 'payonce/internal/payments/order-status.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from 'payonce/internal/payments/payments-tables.js';
import type { ServiceContext } from './service-context.js';

/** The only currency Payme, Click and Uzum charge: Uzbek sum, amounts in tiyin (1 sum = 100 tiyin), the order's minor units. */
export const UZS = 'UZS';

/** The order statuses a local provider's payment may start on: not yet paid, cancelled or refunded. */
const PAYABLE = new Set(['draft', 'awaiting_payment']);
const PAID: ReadonlySet<string> = new Set(PAID_ORDER_STATUSES);

/** What {@link lockPayableOrder} also returns. */
export interface PayableOrderOptions {
  /**
   * Also return an order already paid through an attempt of `provider`, so the engine answers it from its own
   * transaction (Click -4, Uzum 10008: "already paid") rather than as an unknown order. @default false
   */
  readonly orPaidByProvider?: boolean;
}

/** The provider of the attempt `attemptId`, read in `trx` (qualified with the store's schema). */
async function providerOf(ctx: ServiceContext, trx: Transaction<unknown>, attemptId: string): Promise<string | null> {
  const on = trx as unknown as Kysely<PaymentsDatabase>;
  const row = await (ctx.store.schema ? on.withSchema(ctx.store.schema) : on)
    .selectFrom(ATTEMPTS_TABLE)
    .select('provider')
    .where('id', '=', attemptId)
    .executeTakeFirst();
  return row?.provider ?? null;
}

/**
 * The service order `orderId` names, locked in the provider call's transaction `trx`, when `provider` may pay it:
 * in `UZS`, `draft` or `awaiting_payment`, and with no active attempt of another provider (one active attempt per
 * order, across Stripe checkout, Payme, Click and Uzum); with `orPaidByProvider`, also a UZS order already paid
 * through `provider`. `null` otherwise (no such order, paid by another, another currency, a payment of another
 * provider under way), which each engine answers with its "no such account" error.
 * @see docs/service.md "Payme, Click and Uzum"; docs/design.md §6 (one active attempt per order).
 */
export async function lockPayableOrder(
  ctx: ServiceContext,
  trx: Transaction<unknown>,
  orderId: string | null,
  provider: string,
  options: PayableOrderOptions = {},
): Promise<Order | null> {
  const locked = orderId === null ? null : await ctx.payments.lockOrderIn(trx, orderId);
  if (locked === null || locked.order.currency !== UZS) return null;
  const { order, activeAttempt } = locked;
  if (options.orPaidByProvider && PAID.has(order.status) && order.paidAttemptId !== null) {
    return (await providerOf(ctx, trx, order.paidAttemptId)) === provider ? order : null;
  }
  if (!PAYABLE.has(order.status)) return null;
  if (activeAttempt !== null && activeAttempt.provider !== provider) return null;
  return order;
}
