import { MalformedWebhookPayload } from '../webhooks/providers/malformed-webhook-payload.js';
import { type JsonObject, PayloadReader } from '../webhooks/providers/payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from '../webhooks/providers/provider-event.js';
import type { HeadersInput } from '../webhooks/verify/headers.js';
import { PAYMENT_EVENT_TYPES } from './payment-event-of.js';

/** Reads the provider's event id of a verified delivery: Stripe body `id`, Standard Webhooks `webhook-id`. */
export type EventIdReader = (body: JsonObject, headers: HeadersInput | undefined) => string | null;

/**
 * `eventType` of an authentic delivery whose JSON body names no event type at all (e.g. Stripe's signature test
 * body `{"id":"evt_test_webhook","object":"event"}`): the empty string, which no handler acts on.
 */
export const NO_EVENT_TYPE = '';

/**
 * Wraps a provider profile for the reference service so that every AUTHENTIC delivery with an event id takes
 * effect exactly once, whatever its type (issue 7, "each valid delivery is accepted … exactly once"):
 * - a payment event type the service acts on (`PAYMENT_EVENT_TYPES`) is read by `base` in full; an unreadable or
 *   mistyped field, or a payment event naming neither a payment id nor a merchant reference, throws
 *   `MalformedWebhookPayload` (400, no receipt): the service cannot act on it and a human must look;
 * - any other body that is a JSON object with an event id (`idOf`) is read by `base` when it can be, and
 *   otherwise reduced to its id, its `type` (or {@link NO_EVENT_TYPE}) and its payload, so the intake claims a
 *   receipt for it and the handler acknowledges it with no business action; redeliveries are duplicates;
 * - a body that is not a JSON object, or has no event id, still throws `MalformedWebhookPayload` (400).
 * The intake's general behaviour (an unreadable payload is refused) is unchanged; only the reference service,
 * which knows which types it handles, widens what it acknowledges (docs/service.md "Implementation notes").
 * @throws {MalformedWebhookPayload} from `extract`, as listed.
 * @example acknowledgingProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null))
 */
export function acknowledgingProfile(base: ProviderProfile, idOf: EventIdReader): ProviderProfile {
  const read = new PayloadReader(base.provider);

  function extract(input: ExtractInput): ProviderEvent {
    const body = read.json(input.rawBody);
    const type = typeof body.type === 'string' && body.type !== '' ? body.type : null;
    if (type !== null && Object.hasOwn(PAYMENT_EVENT_TYPES, type)) {
      const event = base.extract(input);
      if (event.paymentId === null && event.merchantReference === null) {
        read.fail('data.object', `of a ${type} event must name its payment (payment intent) or a merchant reference`);
      }
      return event;
    }
    try {
      return base.extract(input);
    } catch (error) {
      if (!(error instanceof MalformedWebhookPayload)) throw error;
      const eventId = idOf(body, input.headers);
      if (eventId === null || eventId === '') throw error;
      return {
        provider: base.provider,
        eventId,
        eventType: type ?? NO_EVENT_TYPE,
        objectId: null,
        paymentId: null,
        amountMinor: null,
        currency: null,
        merchantReference: null,
        occurredAtMs: null,
        key: read.key(eventId, 'event id'),
        payload: body,
      };
    }
  }
  return { provider: base.provider, amountUnits: base.amountUnits, extract };
}
