import { RequestKey } from '../core/request-key.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from '../payments/provider-payment-event.js';
import type { ProviderEvent } from '../webhooks/providers/provider-event.js';

/**
 * Payment status of each Stripe event type the service acts on (the sandbox sends the same names on both of
 * its signing schemes). Any other type is acknowledged and journaled with no business action.
 * @see https://docs.stripe.com/api/events/types; docs/sandbox.md "Webhooks".
 */
export const PAYMENT_EVENT_TYPES: Readonly<Record<string, PaymentEventStatus>> = Object.freeze({
  'payment_intent.succeeded': 'succeeded',
  'charge.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'failed',
  'payment_intent.canceled': 'cancelled',
  'charge.refunded': 'refunded',
  'payment_intent.processing': 'pending',
  'payment_intent.requires_action': 'requires_action',
});

function objectOf(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * The order id a Stripe-shaped payload echoes in `metadata.order_id` of its object (`data.object` of a Stripe
 * event, `data` of a Standard Webhooks envelope), or `null` when it carries none.
 */
export function orderIdOf(payload: unknown): string | null {
  const data = objectOf(objectOf(payload)?.data);
  const object = objectOf(data?.object) ?? data;
  const orderId = objectOf(object?.metadata)?.order_id;
  return typeof orderId === 'string' && orderId !== '' ? orderId : null;
}

/**
 * Maps a verified, extracted webhook event to the input of `Payments.applyProviderEvent`, or `null` for an event
 * type the service does not act on ({@link PAYMENT_EVENT_TYPES}). `provider` is the `PaymentProvider.name` the
 * attempts were created with: both webhook endpoints carry events of that one provider, so the event is
 * re-keyed `(provider, event id)` whichever endpoint (intake receipt namespace) received it. The money fields,
 * payment id and merchant reference are the profile's; the order id comes from `metadata.order_id`.
 * @see docs/design.md §5–6; `ProviderPaymentEvent`.
 * @example paymentEventOf(stripeProfile().extract({ rawBody }), 'stripe')?.status // 'succeeded'
 */
export function paymentEventOf(event: ProviderEvent, provider: string): ProviderPaymentEvent | null {
  const status = Object.hasOwn(PAYMENT_EVENT_TYPES, event.eventType) ? PAYMENT_EVENT_TYPES[event.eventType] : undefined;
  if (status === undefined || event.eventId === null) return null;
  return Object.freeze({
    provider,
    key: new RequestKey(provider, event.eventId),
    eventType: event.eventType,
    status,
    paymentId: event.paymentId,
    amountMinor: event.amountMinor,
    currency: event.currency,
    merchantReference: event.merchantReference,
    occurredAtMs: event.occurredAtMs,
    orderId: orderIdOf(event.payload),
  });
}
