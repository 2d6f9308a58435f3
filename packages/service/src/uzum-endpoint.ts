import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import { createUzumMerchant, type UzumMerchant } from 'payonce/internal/providers/uzum/uzum-merchant.js';
import type { UzumTransaction } from 'payonce/internal/providers/uzum/uzum-transaction.js';
import { fastifyUzum } from 'payonce/uzum/fastify';
import { lockPayableOrder, UZS } from './payable-order.js';
import type { ServiceContext } from './service-context.js';

/** The provider name of the attempts an Uzum transaction opens (`attempts[].provider` of `GET /orders/:id`). */
export const UZUM_PROVIDER = 'uzum';

/** Path prefix of the five Uzum Bank webhooks (`/uzum/check`, `/uzum/create`, …). */
export const UZUM_PREFIX = '/uzum';

/** The `params` key naming the service order (`params: { "account": "<order id>" }`, Uzum's own examples' key). */
export const UZUM_ORDER_PARAM = 'account';

/** `params.account` as an order id: a string, or a safe integer Uzum Bank sent for a numeric field. */
function orderIdIn(params: Readonly<Record<string, unknown>>): string | null {
  const value = params[UZUM_ORDER_PARAM];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

/**
 * An Uzum transaction's outcome as a provider event of `payments`: received once per (step, transId), payment id
 * = Uzum's `transId` (the attempt `onCreated` opened), amount in tiyin of UZS.
 */
function uzumEvent(tx: UzumTransaction, status: PaymentEventStatus): ProviderPaymentEvent {
  const step = status === 'succeeded' ? 'confirm' : 'reverse';
  return Object.freeze({
    provider: UZUM_PROVIDER,
    key: new RequestKey(UZUM_PROVIDER, `${step}:${tx.transId}`),
    eventType: status === 'succeeded' ? 'uzum.confirm' : 'uzum.reverse',
    status,
    paymentId: tx.transId,
    amountMinor: tx.amountTiyin,
    currency: UZS,
    merchantReference: null,
    occurredAtMs: status === 'succeeded' ? tx.confirmTime : tx.reverseTime,
    orderId: tx.orderId,
  });
}

/**
 * The reference service's Uzum merchant: the `payonce/uzum` engine on the service's store, with the service's
 * orders as what Uzum Bank pays (`config.uzum`: login, password, service id).
 * - `findOrder`: `params.account` ({@link UZUM_ORDER_PARAM}) is the service order's id; the order must be payable
 *   by Uzum (`lockPayableOrder`: UZS, `draft`/`awaiting_payment`, no other provider's attempt), its amount in
 *   tiyin is `amountMinor`; an order Uzum already paid is returned too, so the engine answers 10008 from its
 *   confirmed transaction. Anything else is `null` (10007).
 * - `onCreated`: opens the order's attempt of provider `uzum`, payment id = `transId`.
 * - `onConfirmed`: applies `succeeded` through `payments.applyProviderEvent` in the /confirm's transaction: the order
 *   becomes paid and its fulfilment job is enqueued once.
 * - `onReversed`: a /reverse of a CREATED transaction applies `cancelled` (the order is payable again); of a
 *   CONFIRMED one applies `refunded` (the order is refunded and its refund job enqueued).
 * @see docs/service.md "Payme, Click and Uzum"; docs/providers/uzum.md.
 */
export function serviceUzumMerchant(ctx: ServiceContext): UzumMerchant {
  const config = ctx.config.uzum;
  if (config === null) throw new Error('serviceUzumMerchant needs config.uzum');
  const apply = async (trx: Transaction<unknown>, tx: UzumTransaction, status: PaymentEventStatus) => {
    await ctx.payments.applyProviderEvent(uzumEvent(tx, status), trx);
  };
  return createUzumMerchant<unknown>({
    store: ctx.store,
    login: config.login,
    password: config.password,
    serviceId: config.serviceId,
    clock: ctx.clock,
    findOrder: async (params, trx) => {
      const order = await lockPayableOrder(ctx, trx, orderIdIn(params), UZUM_PROVIDER, { orPaidByProvider: true });
      return order === null ? null : { orderId: order.id, amountTiyin: order.amountMinor };
    },
    onCreated: async (trx, tx) => {
      await ctx.payments.openProviderAttempt(trx, tx.orderId, { provider: UZUM_PROVIDER, paymentId: tx.transId });
    },
    onConfirmed: (trx, tx) => apply(trx, tx, 'succeeded'),
    onReversed: (trx, tx) => apply(trx, tx, tx.confirmTime === null ? 'cancelled' : 'refunded'),
    onError: (error) => ctx.logger.error({ err: error }, 'uzum call failed (answered 99999)'),
  });
}

/** Registers `POST /uzum/check|create|confirm|reverse|status` when Uzum is configured; else nothing. */
export async function registerUzum(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.uzum === null) return;
  await app.register(fastifyUzum(serviceUzumMerchant(ctx), { prefix: UZUM_PREFIX }));
}
