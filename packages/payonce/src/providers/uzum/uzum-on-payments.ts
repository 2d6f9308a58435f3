import type { Transaction } from 'kysely';
import { RequestKey } from '../../core/request-key.js';
import type { Payments } from '../../payments/payments.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from '../../payments/provider-payment-event.js';
import type { UzumMerchantOptions } from './uzum-merchant-options.js';
import type { UzumTransaction } from './uzum-transaction.js';

/** The provider name of the attempts and events an Uzum transaction gives `payments`. */
export const UZUM_PROVIDER = 'uzum';

/** The only currency Uzum Bank charges here: Uzbek sum (UZS), amounts in tiyin (1 sum = 100 tiyin). */
export const UZUM_CURRENCY = 'UZS';

/** Options of `uzumOnPayments`. */
export interface UzumOnPaymentsOptions {
  /** The `params` key naming the order (as configured for your service with Uzum Bank). @default 'account' */
  readonly orderParam?: string;
}

/** The hooks of `createUzumMerchant` that `uzumOnPayments` supplies. */
export type UzumOnPaymentsHooks<DB> = Required<
  Pick<UzumMerchantOptions<DB>, 'findOrder' | 'onCreated' | 'onConfirmed' | 'onReversed'>
>;

/** `params[key]` as an order id: a string, or a safe integer Uzum Bank sent for a numeric field. */
function orderIdIn(params: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = params[key];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

/**
 * An Uzum transaction's outcome as a provider event of `payments`: received once per (step, transId), its payment
 * id Uzum's `transId` (the attempt `onCreated` opened), amount in tiyin of UZS.
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
    currency: UZUM_CURRENCY,
    merchantReference: null,
    occurredAtMs: status === 'succeeded' ? tx.confirmTime : tx.reverseTime,
    orderId: tx.orderId,
  });
}

/**
 * The Uzum engine on top of `payments` (docs/payments.md): the hooks of `createUzumMerchant` that make Uzum Bank's
 * transactions the payment attempts of `payments`' orders, so the order's state machine, its journal and its
 * fulfilment job (enqueued once by `payments` when the order becomes paid) are those of any other provider.
 * Spread them into the engine's options: `createUzumMerchant({ store, login, password, serviceId,
 * ...uzumOnPayments(payments) })`.
 * - `findOrder`: `params[orderParam]` is the id of an order Uzum may pay (`payments.lockPayableOrderIn`: locked in
 *   the call's transaction, UZS, `draft` or `awaiting_payment`, no active attempt of another provider); an order
 *   Uzum already paid is answered too, so the engine gives 10008 from its confirmed transaction. Anything else is
 *   `null` (10007). The amount in tiyin is the order's `amountMinor`.
 * - `onCreated`: opens the order's attempt of provider `uzum`, payment id = `transId`.
 * - `onConfirmed`: applies `succeeded` in the /confirm's transaction: the order becomes paid once.
 * - `onReversed`: a /reverse of a CREATED transaction applies `cancelled` (the order is payable again); of a
 *   CONFIRMED one applies `refunded` (the order is refunded and its refund job enqueued).
 * `payments` must use the store the engine uses (one transaction holds both).
 * @throws nothing itself; the hooks throw what `payments` throws (the engine then answers 99999 and rolls back).
 * @see docs/providers/uzum.md; Uzum Bank Merchant API, https://developer.uzumbank.uz/en/merchant/
 */
export function uzumOnPayments<DB>(
  payments: Payments<DB>,
  options: UzumOnPaymentsOptions = {},
): UzumOnPaymentsHooks<DB> {
  const key = options.orderParam ?? 'account';
  const apply = async (trx: Transaction<DB>, tx: UzumTransaction, status: PaymentEventStatus) => {
    await payments.applyProviderEvent(uzumEvent(tx, status), trx);
  };
  const rule = { provider: UZUM_PROVIDER, currency: UZUM_CURRENCY, orPaidByProvider: true };
  return {
    findOrder: async (params, trx) => {
      const order = await payments.lockPayableOrderIn(trx, orderIdIn(params, key), rule);
      return order === null ? null : { orderId: order.id, amountTiyin: order.amountMinor };
    },
    onCreated: async (trx, tx) => {
      await payments.openProviderAttempt(trx, tx.orderId, { provider: UZUM_PROVIDER, paymentId: tx.transId });
    },
    onConfirmed: (trx, tx) => apply(trx, tx, 'succeeded'),
    onReversed: (trx, tx) => apply(trx, tx, tx.confirmTime === null ? 'cancelled' : 'refunded'),
  };
}
