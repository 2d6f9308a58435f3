import { PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/** Options of {@link stripeProfile}. */
export interface StripeProfileOptions {
  /**
   * `metadata` key holding the merchant reference on PaymentIntents and Charges; Checkout Sessions use
   * `client_reference_id` first. @default 'merchant_reference'
   */
  metadataKey?: string;
}

/**
 * Stripe events (`{ id: "evt_…", type, created, data: { object } }`). Amounts are already integer minor units
 * ("smallest currency unit": cents; yen for zero-decimal JPY), currency lower-case on the wire and returned
 * upper-case. `amountMinor` is the object's `amount` (for a charge: the charged amount; the refunded part is
 * `amount_refunded` in the payload), else `amount_total` (Checkout Session), else an invoice's `amount_paid`. `paymentId` is the PaymentIntent
 * (`pi_…`) the object is or belongs to. The receipt key is the event id, unique per event: a refund event and
 * the payment's events never collide, while two events about one payment (`payment_intent.succeeded`,
 * `charge.succeeded`) share `paymentId` so the business transition can be made once.
 * Typed access to the object itself (Invoice, Charge, Checkout Session, …: `customer`, metadata, every amount):
 * `stripeObject(event, 'invoice')`.
 * @see https://docs.stripe.com/api/events/object; https://docs.stripe.com/currencies#zero-decimal.
 * @example const event = stripeProfile().extract({ rawBody });
 */
export function stripeProfile(options: StripeProfileOptions = {}): ProviderProfile {
  const metadataKey = options.metadataKey ?? 'merchant_reference';
  const read = new PayloadReader('stripe');

  function extract({ rawBody }: ExtractInput): ProviderEvent {
    const body = read.json(rawBody);
    const eventId = read.string(body.id, 'id');
    const eventType = read.string(body.type, 'type');
    const occurredAtMs = read.unixSecondsAsMs(body.created, 'created');
    const object = read.object(read.object(body.data, 'data').object, 'data.object');
    const objectId = read.optionalString(object.id, 'data.object.id');
    const kind = read.optionalString(object.object, 'data.object.object');
    const pi = object.payment_intent;
    const paymentId =
      kind === 'payment_intent'
        ? objectId
        : typeof pi === 'object' && pi !== null
          ? read.optionalString(read.object(pi, 'data.object.payment_intent').id, 'data.object.payment_intent.id')
          : read.optionalString(pi, 'data.object.payment_intent');
    const amountMinor =
      read.optionalInteger(object.amount, 'data.object.amount') ??
      read.optionalInteger(object.amount_total, 'data.object.amount_total') ??
      (kind === 'invoice' ? read.optionalInteger(object.amount_paid, 'data.object.amount_paid') : null);
    const currency = object.currency == null ? null : read.currency(object.currency, 'data.object.currency');
    const metadata = read.optionalObject(object.metadata, 'data.object.metadata');
    const merchantReference =
      read.optionalString(object.client_reference_id, 'data.object.client_reference_id') ??
      (metadata ? read.optionalString(metadata[metadataKey], `data.object.metadata.${metadataKey}`) : null);
    return {
      provider: read.provider,
      eventId,
      eventType,
      objectId,
      paymentId,
      amountMinor,
      currency,
      merchantReference,
      occurredAtMs,
      key: read.key(eventId, 'id'),
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'minor', extract };
}
