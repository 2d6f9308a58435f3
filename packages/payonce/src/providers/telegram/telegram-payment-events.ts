import { RequestKey } from '../../core/request-key.js';
import type { ProviderPaymentEvent } from '../../payments/provider-payment-event.js';
import type { SuccessfulPaymentFacts } from './telegram-payment-facts.js';
import { TELEGRAM_PROVIDER } from './telegram-update.js';

/**
 * The provider event of a `successful_payment`: receipt `telegram` / `charge:<telegram_payment_charge_id>`, so the
 * same charge applies once whatever update brings it (a redelivery, a re-served update, another update). The
 * attempt's payment id is the order id (the invoice payload), which `openProviderAttempt` gave it at pre-checkout.
 * @see https://core.telegram.org/bots/api#successfulpayment
 */
export function telegramPaidEvent(paid: SuccessfulPaymentFacts & { readonly orderId: string }): ProviderPaymentEvent {
  return Object.freeze({
    provider: TELEGRAM_PROVIDER,
    key: new RequestKey(TELEGRAM_PROVIDER, `charge:${paid.chargeId}`),
    eventType: 'telegram.successful_payment',
    status: 'succeeded',
    paymentId: paid.orderId,
    amountMinor: paid.totalAmount,
    currency: paid.currency,
    merchantReference: null,
    occurredAtMs: paid.paidAtMs,
    orderId: paid.orderId,
  });
}

/** What a Stars refund job carries (the outbox payload of topic `telegram.refund`). */
export interface TelegramRefundPayload {
  /** The order refunded; for a stray charge the order its payload named, or `null` (no order id in it). */
  readonly orderId: string | null;
  /** `refundStarPayment`'s `user_id`: the payer. */
  readonly userId: number;
  readonly chargeId: string;
  /** The refunded amount, whole stars (the order's amount; a stray charge's own amount). */
  readonly amountMinor: number;
  readonly currency: string;
  /**
   * True for the refund of a charge that paid no order still paid (`requestStrayStarRefund`: a double charge, a
   * charge of another amount, a payment for a cancelled order): the money goes back, no order is marked refunded.
   */
  readonly stray?: boolean;
}

/** The provider event of a refund `refundStarPayment` confirmed: receipt `telegram` / `refund:<charge id>`, full amount. */
export function telegramRefundEvent(
  refund: TelegramRefundPayload & { readonly orderId: string },
  refundedAtMs: number,
): ProviderPaymentEvent {
  return Object.freeze({
    provider: TELEGRAM_PROVIDER,
    key: new RequestKey(TELEGRAM_PROVIDER, `refund:${refund.chargeId}`),
    eventType: 'telegram.refundStarPayment',
    status: 'refunded',
    paymentId: refund.orderId,
    amountMinor: refund.amountMinor,
    currency: refund.currency,
    merchantReference: null,
    occurredAtMs: refundedAtMs,
    orderId: refund.orderId,
    refundedMinor: refund.amountMinor,
  });
}
