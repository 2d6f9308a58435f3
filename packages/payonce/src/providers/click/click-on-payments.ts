import type { Transaction } from 'kysely';
import { RequestKey } from '../../core/request-key.js';
import type { Payments } from '../../payments/payments.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from '../../payments/provider-payment-event.js';
import type { ClickMerchantOptions } from './click-merchant-options.js';
import type { ClickTransaction } from './click-transaction.js';

/** The provider name of the attempts and events a Click transaction gives `payments`. */
export const CLICK_PROVIDER = 'click';

/** The only currency Click charges here: Uzbek sum (UZS), amounts in tiyin (1 sum = 100 tiyin). */
export const CLICK_CURRENCY = 'UZS';

/** The hooks of `createClickMerchant` that `clickOnPayments` supplies. */
export type ClickOnPaymentsHooks<DB> = Required<
  Pick<ClickMerchantOptions<DB>, 'findOrder' | 'onPrepared' | 'onCompleted' | 'onCancelled'>
>;

/**
 * A Click transaction's outcome as a provider event of `payments`: received once per (step, click_trans_id), its
 * payment id Click's `click_trans_id` (the attempt `onPrepared` opened), amount in tiyin of UZS.
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
    currency: CLICK_CURRENCY,
    merchantReference: null,
    occurredAtMs: status === 'succeeded' ? tx.completeTime : tx.cancelTime,
    orderId: tx.merchantTransId,
  });
}

/**
 * The Click engine on top of `payments` (docs/payments.md): the hooks of `createClickMerchant` that make Click's
 * transactions the payment attempts of `payments`' orders, so the order's state machine, its journal and its
 * fulfilment job (enqueued once by `payments` when the order becomes paid) are those of any other provider.
 * Spread them into the engine's options: `createClickMerchant({ store, serviceId, secretKey,
 * ...clickOnPayments(payments) })`.
 * - `findOrder`: `merchant_trans_id` is the id of an order Click may pay (`payments.lockPayableOrderIn`: locked in
 *   the call's transaction, UZS, `draft` or `awaiting_payment`, no active attempt of another provider); an order
 *   Click already paid is answered too, so the engine gives -4 from its completed transaction. Anything else is
 *   `null` (Click gets -5). The amount in tiyin is the order's `amountMinor` (a different amount is -2).
 * - `onPrepared`: opens the order's attempt of provider `click`, payment id = `click_trans_id`.
 * - `onCompleted`: applies `succeeded` in the Complete's transaction: the order becomes paid once.
 * - `onCancelled` (a Complete carrying `error < 0`, or a newer Prepare replacing a prepared one): applies
 *   `cancelled`; the order is payable again. Click's SHOP API never cancels a completed payment.
 * `payments` must use the store the engine uses (one transaction holds both).
 * @throws nothing itself; the hooks throw what `payments` throws (the engine then answers -7 and rolls back).
 * @see docs/providers/click.md; Click SHOP API, https://docs.click.uz/en/click-api-request/
 */
export function clickOnPayments<DB>(payments: Payments<DB>): ClickOnPaymentsHooks<DB> {
  const apply = async (trx: Transaction<DB>, tx: ClickTransaction, status: PaymentEventStatus) => {
    await payments.applyProviderEvent(clickEvent(tx, status), trx);
  };
  const rule = { provider: CLICK_PROVIDER, currency: CLICK_CURRENCY, orPaidByProvider: true };
  return {
    findOrder: async (merchantTransId, trx) => {
      const order = await payments.lockPayableOrderIn(trx, merchantTransId, rule);
      return order === null ? null : { amountTiyin: order.amountMinor };
    },
    onPrepared: async (trx, tx) => {
      const ref = { provider: CLICK_PROVIDER, paymentId: String(tx.clickTransId) };
      await payments.openProviderAttempt(trx, tx.merchantTransId, ref);
    },
    onCompleted: (trx, tx) => apply(trx, tx, 'succeeded'),
    onCancelled: (trx, tx) => apply(trx, tx, 'cancelled'),
  };
}
