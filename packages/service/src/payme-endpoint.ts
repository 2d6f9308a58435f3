import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import { createPaymeMerchant, type PaymeMerchant } from 'payonce/internal/providers/payme/payme-merchant.js';
import type { PaymeOrder } from 'payonce/internal/providers/payme/payme-order.js';
import type { PaymeTransaction } from 'payonce/internal/providers/payme/payme-transaction.js';
import { storedPaymeKeys } from 'payonce/internal/providers/payme/stored-payme-keys.js';
import { fastifyPayme } from 'payonce/payme/fastify';
import { lockPayableOrder, UZS } from './payable-order.js';
import type { ServiceContext } from './service-context.js';

/** The provider name of the attempts a Payme transaction opens (`attempts[].provider` of `GET /orders/:id`). */
export const PAYME_PROVIDER = 'payme';

/** The only currency Payme charges: Uzbek sum, amounts in tiyin (1 sum = 100 tiyin), the order's minor units. */
export const PAYME_CURRENCY = UZS;

/** Route of the Payme Merchant API endpoint. */
export const PAYME_PATH = '/payme';

/** The account value naming the order: a string, or a number Payme sent for a numeric field. */
function orderIdIn(account: Readonly<Record<string, unknown>>, field: string): string | null {
  const value = account[field];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

/**
 * A Payme transaction's step as a provider event of `payments`: received once per (step, Payme id), payment id =
 * the Payme id (the attempt `onCreated` opened), amount in tiyin of UZS, the order it pays.
 */
function paymeEvent(
  tx: PaymeTransaction,
  step: 'perform' | 'cancel',
  status: PaymentEventStatus,
  atMs: number | null,
): ProviderPaymentEvent {
  return Object.freeze({
    provider: PAYME_PROVIDER,
    key: new RequestKey(PAYME_PROVIDER, `${step}:${tx.paymeId}`),
    eventType: step === 'perform' ? 'payme.PerformTransaction' : 'payme.CancelTransaction',
    status,
    paymentId: tx.paymeId,
    amountMinor: tx.amountTiyin,
    currency: PAYME_CURRENCY,
    merchantReference: null,
    occurredAtMs: atMs,
    orderId: tx.orderId,
  });
}

/**
 * The reference service's Payme merchant: the `payonce/payme` engine on the service's store, with the service's
 * orders as what Payme pays.
 * - `findOrder`: the account field `config.paymeAccountField` names a service order (locked in the call's
 *   transaction) in `UZS`, `draft` or `awaiting_payment`, with no active attempt of another provider; its amount
 *   in tiyin is the order's `amountMinor`. Anything else is `null` (Payme gets -31050 with the field's name).
 * - `onCreated`: opens the order's attempt of provider `payme`, payment id = Payme's id (`openProviderAttempt`), so
 *   a checkout cannot open a second payment beside it.
 * - `onPerformed`: applies `succeeded` through `payments.applyProviderEvent` in the perform's transaction: the order
 *   becomes paid and its fulfilment job is enqueued once, as a Stripe webhook's success does.
 * - `onCancelled`: state -1 applies `cancelled` (the attempt ends; the order is payable again); state -2 applies
 *   `refunded` (the order is refunded and its refund job enqueued).
 * Keys live in `payonce_payme_keys` (`storedPaymeKeys`), seeded with `config.paymeKeys`, so `ChangePassword` holds
 * across replicas and restarts.
 * @see docs/service.md "Payme"; docs/providers/payme.md.
 */
export function servicePaymeMerchant(ctx: ServiceContext): PaymeMerchant {
  const field = ctx.config.paymeAccountField;
  const apply = async (trx: Transaction<unknown>, event: ProviderPaymentEvent) => {
    await ctx.payments.applyProviderEvent(event, trx);
  };
  return createPaymeMerchant<unknown>({
    store: ctx.store,
    keyProvider: storedPaymeKeys(ctx.store, { initialKeys: ctx.config.paymeKeys, clock: ctx.clock }),
    clock: ctx.clock,
    accountField: field,
    findOrder: async (account, trx): Promise<PaymeOrder | null> => {
      const order = await lockPayableOrder(ctx, trx, orderIdIn(account, field), PAYME_PROVIDER);
      return order === null ? null : { orderId: order.id, amountTiyin: order.amountMinor };
    },
    onCreated: async (trx, tx) => {
      await ctx.payments.openProviderAttempt(trx, tx.orderId, { provider: PAYME_PROVIDER, paymentId: tx.paymeId });
    },
    onPerformed: (trx, tx) => apply(trx, paymeEvent(tx, 'perform', 'succeeded', tx.performTime)),
    onCancelled: (trx, tx) =>
      apply(trx, paymeEvent(tx, 'cancel', tx.state === -2 ? 'refunded' : 'cancelled', tx.cancelTime)),
    onError: (error) => ctx.logger.error({ err: error }, 'payme call failed (answered -32400)'),
  });
}

/** Registers `POST /payme` (the engine's Fastify glue) when a Payme key is configured; else nothing. */
export async function registerPayme(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.paymeKeys.length === 0) return;
  await app.register(fastifyPayme(servicePaymeMerchant(ctx), { path: PAYME_PATH }));
}
