import type { Transaction } from 'kysely';
import { OrderNotPayable } from '../../payments/order-not-payable.js';
import type { PaymentAlert } from '../../payments/payment-alert.js';
import type { Payments } from '../../payments/payments.js';
import { recordCharge, type TelegramChargeDecision } from './telegram-charges.js';
import { telegramPaidEvent } from './telegram-payment-events.js';
import type { SuccessfulPaymentFacts } from './telegram-payment-facts.js';
import { TELEGRAM_PROVIDER } from './telegram-update.js';

/** What became of one `successful_payment`. */
export interface SuccessfulPaymentResult {
  readonly chargeId: string;
  readonly orderId: string | null;
  readonly userId: number | null;
  /** `payments`' decision (`applied`, `unchanged`, `rejected`, `parked`), or `declined` (no order of ours). */
  readonly decision: TelegramChargeDecision;
  /** True when this charge was recorded before (a repeat): nothing changed now. */
  readonly duplicate: boolean;
  readonly becamePaid: boolean;
  readonly reason: string | null;
}

/**
 * Start of the reason and alert of a charge that paid nothing: another `telegram_payment_charge_id` for an order its
 * Telegram payment already paid (or that was paid, then refunded) — the buyer paid twice, e.g. the same invoice on
 * two devices, both pre-checkouts approved before either payment arrived. `payments` records it `unchanged` (the
 * attempt is already `succeeded`); the money is real, so it is alerted and `requestStrayStarRefund` takes this charge.
 */
export const EXTRA_TELEGRAM_CHARGE = 'another Telegram charge for an order already paid by Telegram';

/** The alert of a payment whose payload or amount names no order of ours. */
const alertOf = (paid: SuccessfulPaymentFacts, reason: string): PaymentAlert =>
  Object.freeze({
    provider: TELEGRAM_PROVIDER,
    eventId: `charge:${paid.chargeId}`,
    attemptId: null,
    orderId: paid.orderId,
    reason,
  });

/**
 * Applies a `successful_payment` in `trx`: `succeeded` through `payments.applyProviderEvent`, keyed by
 * `telegram_payment_charge_id`. When the order's attempt is missing (the pre-checkout's commit was lost) and the
 * order is still payable by Telegram, it is opened first. A foreign amount or currency is `rejected` by `payments`
 * (journaled, alerted through `onAlert` of `Payments`), a payload naming no order is journaled as `parked` and
 * alerted through `alert`; a payload that cannot be an order id is `declined` and alerted. None marks an order paid.
 * Another charge for an order Telegram already paid (a double charge) is `unchanged` by `payments` and alerted
 * through `alert` ({@link EXTRA_TELEGRAM_CHARGE}): its money is refunded with `requestStrayStarRefund`, the order kept.
 * Every charge is recorded once, whatever the decision, with its payer (`payonce_telegram_charges`, `recordCharge`):
 * the payer of record of its refund. A declined charge id longer than 160 characters is not recorded.
 * @throws what `payments` throws (the database's errors; `InvalidRequestKey` for a charge id over ~140 characters).
 */
export async function applySuccessfulPayment<DB>(
  payments: Payments<DB>,
  trx: Transaction<DB>,
  paid: SuccessfulPaymentFacts,
  alert: (alert: PaymentAlert) => void,
  nowMs: number,
): Promise<SuccessfulPaymentResult> {
  const base = { chargeId: paid.chargeId, orderId: paid.orderId, userId: paid.userId };
  const { orderId } = paid;
  if (orderId === null) {
    if (paid.chargeId.length <= 160) await recordCharge(payments.store, trx, paid, 'declined', nowMs);
    alert(alertOf(paid, 'successful_payment whose invoice_payload is no order id: money to refund'));
    return { ...base, decision: 'declined', duplicate: false, becamePaid: false, reason: 'no order id in the payload' };
  }
  if (paid.currency !== null) {
    const rule = { provider: TELEGRAM_PROVIDER, currency: paid.currency, orPaidByProvider: true };
    const order = await payments.lockPayableOrderIn(trx, orderId, rule);
    const pending = order !== null && (order.status === 'draft' || order.status === 'awaiting_payment');
    if (pending && order.amountMinor === paid.totalAmount) {
      try {
        await payments.openProviderAttempt(trx, orderId, { provider: TELEGRAM_PROVIDER, paymentId: orderId });
      } catch (error) {
        // Its Telegram attempt ended cancelled or failed: `payments` applies the money as a late success below.
        if (!(error instanceof OrderNotPayable)) throw error;
      }
    }
  }
  const result = await payments.applyProviderEvent(telegramPaidEvent({ ...paid, orderId }), trx);
  await recordCharge(payments.store, trx, paid, result.decision, nowMs);
  if (result.decision === 'parked' && !result.duplicate) {
    alert(alertOf(paid, 'successful_payment for no Telegram attempt of this order: money to refund or review'));
  }
  const { decision, duplicate, becamePaid } = result;
  if (decision === 'unchanged' && !duplicate) {
    // A new charge that changed nothing: the order's Telegram attempt had already succeeded by another charge.
    const reason = `${EXTRA_TELEGRAM_CHARGE}: double charge, refund it (requestStrayStarRefund) or review`;
    alert(alertOf(paid, reason));
    return { ...base, decision, duplicate, becamePaid, reason };
  }
  return { ...base, decision, duplicate, becamePaid, reason: result.reason };
}
