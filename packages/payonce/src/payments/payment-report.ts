import type { PaymentEventStatus } from './provider-payment-event.js';

/**
 * One report about an attempt, whatever its source: a webhook event, the checkout's provider response, or a
 * reconciliation look-up. `unknown` = the create call's result was not learnt; `not_found` = the provider
 * confirmed it has no payment for the merchant reference (`reconcile` no longer reports it: a look-up finding
 * nothing re-sends the create with the same key instead, as a create may still be in flight). Money in integer minor units; times epoch ms UTC.
 */
export interface PaymentReport {
  readonly provider: string;
  /** Journal id: the event id, `checkout:<attemptId>` or `reconcile:<attemptId>:<uuid>`. */
  readonly eventId: string;
  readonly eventType: string;
  readonly status: PaymentEventStatus | 'unknown' | 'not_found';
  readonly paymentId: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  readonly merchantReference: string | null;
  readonly orderRef: string | null;
  readonly occurredAtMs: number | null;
  readonly actionUrl: string | null;
  /** Error text for `unknown` / declined `failed`, stored as the attempt's `last_error`. */
  readonly error: string | null;
  /**
   * For `refunded`: the payment's CUMULATIVE refunded amount, integer minor units (Stripe's charge
   * `amount_refunded`); below the attempt's amount the refund is partial. `null` or absent: the whole amount.
   */
  readonly refundedMinor?: number | null;
}
