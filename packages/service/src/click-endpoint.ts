import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { fastifyClick } from 'payonce/click/fastify';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import { type ClickMerchant, createClickMerchant } from 'payonce/internal/providers/click/click-merchant.js';
import type { ClickTransaction } from 'payonce/internal/providers/click/click-transaction.js';
import { lockPayableOrder, UZS } from './payable-order.js';
import type { ServiceContext } from './service-context.js';

/** The provider name of the attempts a Click transaction opens (`attempts[].provider` of `GET /orders/:id`). */
export const CLICK_PROVIDER = 'click';

/** Routes of Click's SHOP API: the Prepare URL and the Complete URL of the Click merchant cabinet. */
export const CLICK_PATHS = Object.freeze(['/click/prepare', '/click/complete'] as const);

/**
 * A Click transaction's outcome as a provider event of `payments`: received once per (step, click_trans_id),
 * payment id = Click's `click_trans_id` (the attempt `onPrepared` opened), amount in tiyin of UZS.
 */
function clickEvent(tx: ClickTransaction, status: PaymentEventStatus): ProviderPaymentEvent {
  const step = status === 'succeeded' ? 'complete' : 'cancel';
  return Object.freeze({
    provider: CLICK_PROVIDER,
    key: new RequestKey(CLICK_PROVIDER, `${step}:${tx.clickTransId}`),
    eventType: status === 'succeeded' ? 'click.Complete' : 'click.Cancel',
    status,
    paymentId: String(tx.clickTransId),
    amountMinor: tx.amountTiyin,
    currency: UZS,
    merchantReference: null,
    occurredAtMs: status === 'succeeded' ? tx.completeTime : tx.cancelTime,
    orderId: tx.merchantTransId,
  });
}

/**
 * The reference service's Click merchant: the `payonce/click` engine on the service's store, with the service's
 * orders as what Click pays (`config.click`: service id and secret keys).
 * - `findOrder`: `merchant_trans_id` is the service order's id; the order must be payable by Click
 *   (`lockPayableOrder`: UZS, `draft`/`awaiting_payment`, no other provider's attempt), its amount in tiyin is
 *   `amountMinor`; an order Click already paid is returned too, so the engine answers -4 from its completed
 *   transaction. Anything else is `null` (Click gets -5).
 * - `onPrepared`: opens the order's attempt of provider `click`, payment id = `click_trans_id`.
 * - `onCompleted`: applies `succeeded` through `payments.applyProviderEvent` in the Complete's transaction: the
 *   order becomes paid and its fulfilment job is enqueued once.
 * - `onCancelled` (Click's `error < 0`, or a newer Prepare replacing a prepared one): applies `cancelled`; the order
 *   is payable again. A completed Click payment is never cancelled by Click's SHOP API.
 * @see docs/service.md "Payme, Click and Uzum"; docs/providers/click.md.
 */
export function serviceClickMerchant(ctx: ServiceContext): ClickMerchant {
  const config = ctx.config.click;
  if (config === null) throw new Error('serviceClickMerchant needs config.click');
  const apply = async (trx: Transaction<unknown>, tx: ClickTransaction, status: PaymentEventStatus) => {
    await ctx.payments.applyProviderEvent(clickEvent(tx, status), trx);
  };
  return createClickMerchant<unknown>({
    store: ctx.store,
    serviceId: config.serviceId,
    secretKey: config.secretKeys,
    clock: ctx.clock,
    findOrder: async (merchantTransId, trx) => {
      const order = await lockPayableOrder(ctx, trx, merchantTransId, CLICK_PROVIDER, { orPaidByProvider: true });
      return order === null ? null : { amountTiyin: order.amountMinor };
    },
    onPrepared: async (trx, tx) => {
      await ctx.payments.openProviderAttempt(trx, tx.merchantTransId, {
        provider: CLICK_PROVIDER,
        paymentId: String(tx.clickTransId),
      });
    },
    onCompleted: (trx, tx) => apply(trx, tx, 'succeeded'),
    onCancelled: (trx, tx) => apply(trx, tx, 'cancelled'),
    onError: (error) => ctx.logger.error({ err: error }, 'click call failed (answered -7)'),
  });
}

/** Registers `POST /click/prepare` and `POST /click/complete` when Click is configured; else nothing. */
export async function registerClick(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.click === null) return;
  await app.register(fastifyClick(serviceClickMerchant(ctx), { paths: CLICK_PATHS }));
}
