import type { Transaction } from 'kysely';
import { RequestKey } from '../../core/request-key.js';
import type { Payments } from '../../payments/payments.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from '../../payments/provider-payment-event.js';
import type { PaymeMerchantOptions } from './payme-merchant-options.js';
import type { PaymeOrder } from './payme-order.js';
import type { PaymeTransaction } from './payme-transaction.js';

/** The provider name of the attempts and events a Payme transaction gives `payments`. */
export const PAYME_PROVIDER = 'payme';

/** The only currency Payme charges: Uzbek sum (UZS), amounts in tiyin (1 sum = 100 tiyin). */
export const PAYME_CURRENCY = 'UZS';

/** Options of `paymeOnPayments`. */
export interface PaymeOnPaymentsOptions {
  /** The `account` field naming the order (as configured in the Payme cabinet). @default 'order_id' */
  readonly accountField?: string;
}

/** The hooks of `createPaymeMerchant` that `paymeOnPayments` supplies. */
export type PaymeOnPaymentsHooks<DB> = Required<
  Pick<PaymeMerchantOptions<DB>, 'accountField' | 'findOrder' | 'onCreated' | 'onPerformed' | 'onCancelled'>
>;

/** The account value naming the order: a string, or a whole number Payme sent for a numeric field. */
function orderIdIn(account: Readonly<Record<string, unknown>>, field: string): string | null {
  const value = account[field];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

/**
 * A Payme transaction's step as a provider event of `payments`: received once per (step, Payme id), its payment id
 * the Payme id (the attempt `onCreated` opened), amount in tiyin of UZS.
 */
function paymeEvent(
  tx: PaymeTransaction,
  step: 'perform' | 'cancel',
  status: PaymentEventStatus,
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
    occurredAtMs: step === 'perform' ? tx.performTime : tx.cancelTime,
    orderId: tx.orderId,
  });
}

/**
 * The Payme engine on top of `payments` (docs/payments.md): the hooks of `createPaymeMerchant` that make Payme's
 * transactions the payment attempts of `payments`' orders, so the order's state machine, its journal and its
 * fulfilment job (enqueued once by `payments` when the order becomes paid) are the same as for any other provider.
 * Spread them into the engine's options: `createPaymeMerchant({ store, keys, ...paymeOnPayments(payments) })`.
 * - `findOrder`: the account field names an order of `payments` that Payme may pay (`payments.lockPayableOrderIn`:
 *   locked in the call's transaction, in UZS, `draft` or `awaiting_payment`, no active attempt of another
 *   provider); its amount in tiyin is the order's `amountMinor`. Anything else is `null` (-31050 with the field's
 *   name; a wrong amount -31001).
 * - `onCreated`: opens the order's attempt of provider `payme` with Payme's id as its payment id, so one active
 *   attempt per order holds across providers (a card checkout cannot open beside a live Payme transaction).
 * - `onPerformed`: applies `succeeded` in the perform's transaction: the order becomes paid once.
 * - `onCancelled`: state -1 (before perform, or the 12-hour timeout) applies `cancelled`, the order is payable
 *   again; state -2 (after perform) applies `refunded`.
 * `payments` must use the store the engine uses (one transaction holds both).
 * @throws nothing itself; the hooks throw what `payments` throws (the engine then answers -32400 and rolls back).
 * @see docs/providers/payme.md; Payme Merchant API, https://developer.help.paycom.uz/metody-merchant-api/
 */
export function paymeOnPayments<DB>(
  payments: Payments<DB>,
  options: PaymeOnPaymentsOptions = {},
): PaymeOnPaymentsHooks<DB> {
  const field = options.accountField ?? 'order_id';
  const apply = async (trx: Transaction<DB>, event: ProviderPaymentEvent) => {
    await payments.applyProviderEvent(event, trx);
  };
  return {
    accountField: field,
    findOrder: async (account, trx): Promise<PaymeOrder | null> => {
      const rule = { provider: PAYME_PROVIDER, currency: PAYME_CURRENCY };
      const order = await payments.lockPayableOrderIn(trx, orderIdIn(account, field), rule);
      return order === null ? null : { orderId: order.id, amountTiyin: order.amountMinor };
    },
    onCreated: async (trx, tx) => {
      await payments.openProviderAttempt(trx, tx.orderId, { provider: PAYME_PROVIDER, paymentId: tx.paymeId });
    },
    onPerformed: (trx, tx) => apply(trx, paymeEvent(tx, 'perform', 'succeeded')),
    onCancelled: (trx, tx) => apply(trx, paymeEvent(tx, 'cancel', tx.state === -2 ? 'refunded' : 'cancelled')),
  };
}
