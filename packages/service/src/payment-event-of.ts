import { MAX_KEY_PART_CHARS, RequestKey } from 'payonce/internal/core/request-key.js';
import { sha256Hex } from 'payonce/internal/core/sha256-hex.js';
import { InvalidPaymentEvent } from 'payonce/internal/payments/invalid-payment-event.js';
import type { PaymentEventStatus, ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import type { ProviderEvent } from 'payonce/internal/webhooks/providers/provider-event.js';

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

/**
 * The object kind (`object` field) each payment event type must carry: a `payment_intent.*` event is about a
 * PaymentIntent, a `charge.*` event about a Charge. A signed event whose object is of another kind (a `refund`
 * in a `payment_intent.succeeded`) is not the payment it names and never moves an order.
 * @see https://docs.stripe.com/api/events/types (the object each type carries).
 */
export const PAYMENT_EVENT_OBJECTS: Readonly<Record<string, 'payment_intent' | 'charge'>> = Object.freeze(
  Object.fromEntries(
    Object.keys(PAYMENT_EVENT_TYPES).map((type) => [
      type,
      type.startsWith('charge.') ? ('charge' as const) : ('payment_intent' as const),
    ]),
  ),
);

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
  const orderId = objectOf(paymentObjectOf(payload)?.metadata)?.order_id;
  return typeof orderId === 'string' && orderId !== '' ? orderId : null;
}

/** The object of a Stripe-shaped payload: `data.object` of a Stripe event, `data` of a Standard Webhooks one. */
function paymentObjectOf(payload: unknown): Record<string, unknown> | null {
  const data = objectOf(objectOf(payload)?.data);
  return objectOf(data?.object) ?? data;
}

/**
 * Why `event` (a type of {@link PAYMENT_EVENT_TYPES}) cannot be the payment event it says it is, or `null`: its
 * object's kind (`object` field) is not the one {@link PAYMENT_EVENT_OBJECTS} names for its type.
 */
export function paymentObjectProblem(event: ProviderEvent): string | null {
  const expected = PAYMENT_EVENT_OBJECTS[event.eventType];
  if (expected === undefined) return null;
  const kind = paymentObjectOf(event.payload)?.object;
  return kind === expected ? null : `of a ${event.eventType} event must be a ${expected} object`;
}

/**
 * The cumulative refunded amount a `charge.refunded` payload reports: its Charge's `amount_refunded` (integer
 * minor units, sent by Stripe and the sandbox with every `charge.refunded`, partial refunds included), `null` when
 * the object has none (then the refund counts as the whole amount).
 * @throws {InvalidPaymentEvent} `amount_refunded` is present but not a non-negative safe integer.
 * @see https://docs.stripe.com/api/charges/object#charge_object-amount_refunded
 */
export function refundedMinorOf(payload: unknown): number | null {
  const value = paymentObjectOf(payload)?.amount_refunded;
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new InvalidPaymentEvent('amount_refunded must be a non-negative integer of minor units');
}

/**
 * The event id under which a payment event received on endpoint `endpoint` (the intake profile's provider
 * name) is recorded for payment provider `provider`: the provider's own event id on the endpoint named after the
 * provider (`stripe`: `evt_…` unchanged), else `<endpoint>:<event id>` (`standard-webhooks:msg_…`), so two
 * endpoints never share one event-id space (issue #34 item 3). A qualified id longer than a receipt key part
 * (`MAX_KEY_PART_CHARS`, 160) is `<endpoint>#<SHA-256 hex of the event id>`, still one per event.
 * @example paymentEventIdOf('standard-webhooks', 'stripe', 'msg_1') // 'standard-webhooks:msg_1'
 */
export function paymentEventIdOf(endpoint: string, provider: string, eventId: string): string {
  if (endpoint === provider) return eventId;
  const qualified = `${endpoint}:${eventId}`;
  return Array.from(qualified).length <= MAX_KEY_PART_CHARS ? qualified : `${endpoint}#${sha256Hex(eventId)}`;
}

/**
 * Maps a verified, extracted webhook event to the input of `Payments.applyProviderEvent`, or `null` for an event
 * type the service does not act on ({@link PAYMENT_EVENT_TYPES}). `provider` is the `PaymentProvider.name` the
 * attempts were created with: both webhook endpoints carry events of that one provider, so the event is
 * re-keyed `(provider, event id)`, the event id qualified by the endpoint that received it
 * ({@link paymentEventIdOf}: `evt_X` on `stripe`, `standard-webhooks:evt_X` on `standard-webhooks`), so an id
 * one endpoint used never answers another endpoint's event as a duplicate. The money fields,
 * payment id and merchant reference are the profile's; the order id comes from `metadata.order_id`; a
 * `charge.refunded` carries the Charge's cumulative `amount_refunded` as `refundedMinor` ({@link refundedMinorOf}),
 * so a partial refund leaves the order paid.
 * @throws {InvalidPaymentEvent} the event's object is not of the kind its type names ({@link PAYMENT_EVENT_OBJECTS}),
 *   or its `amount_refunded` is mistyped.
 * @see docs/design.md §5–6; `ProviderPaymentEvent`.
 * @example paymentEventOf(stripeProfile().extract({ rawBody }), 'stripe')?.status // 'succeeded'
 */
export function paymentEventOf(event: ProviderEvent, provider: string): ProviderPaymentEvent | null {
  const status = Object.hasOwn(PAYMENT_EVENT_TYPES, event.eventType) ? PAYMENT_EVENT_TYPES[event.eventType] : undefined;
  if (status === undefined || event.eventId === null) return null;
  const wrongObject = paymentObjectProblem(event);
  if (wrongObject !== null) throw new InvalidPaymentEvent(`the object ${wrongObject}`);
  return Object.freeze({
    provider,
    key: new RequestKey(provider, paymentEventIdOf(event.provider, provider, event.eventId)),
    eventType: event.eventType,
    status,
    paymentId: event.paymentId,
    amountMinor: event.amountMinor,
    currency: event.currency,
    merchantReference: event.merchantReference,
    occurredAtMs: event.occurredAtMs,
    orderId: orderIdOf(event.payload),
    refundedMinor: status === 'refunded' ? refundedMinorOf(event.payload) : null,
  });
}
