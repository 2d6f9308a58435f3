import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import type { ProviderPaymentEvent } from '../../packages/payonce/src/payments/provider-payment-event.js';

let eventSeq = 0;

/** A unique provider event id for this test run. */
export const eventId = (label: string): string => `evt_${label}_${++eventSeq}_${process.pid}`;

/**
 * A verified provider event about `attempt` as the webhook intake would hand it over: provider `fake`, a fresh
 * event id, the attempt's payment id, amount, currency and merchant reference, `succeeded` unless overridden.
 */
export function eventAbout(
  attempt: PaymentAttempt,
  overrides: Partial<ProviderPaymentEvent> & { id?: string } = {},
): ProviderPaymentEvent {
  const { id, ...rest } = overrides;
  return {
    provider: 'fake',
    key: new RequestKey('fake', id ?? eventId('e')),
    eventType: 'payment.succeeded',
    status: 'succeeded',
    paymentId: attempt.providerPaymentId,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
    merchantReference: attempt.id,
    occurredAtMs: null,
    ...rest,
  };
}
