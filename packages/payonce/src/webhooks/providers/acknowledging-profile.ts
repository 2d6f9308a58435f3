import type { HeadersInput } from '../verify/headers.js';
import { MalformedWebhookPayload } from './malformed-webhook-payload.js';
import { type JsonObject, PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/** Reads the provider's event id of a verified delivery: Stripe body `id`, Standard Webhooks `webhook-id`. */
export type EventIdReader = (body: JsonObject, headers: HeadersInput | undefined) => string | null;

/**
 * `eventType` of an authentic delivery whose JSON body names no event type at all (e.g. Stripe's signature test
 * body `{"id":"evt_test_webhook","object":"event"}`): the empty string, which no handler acts on.
 */
export const NO_EVENT_TYPE = '';

/** Options of {@link acknowledgingProfile}. */
export interface AcknowledgingProfileOptions {
  /** Reads the event id of a body the base profile cannot read (`(body) => body.id`, or the `webhook-id` header). */
  readonly eventId: EventIdReader;
  /**
   * The event types your handler acts on: these are read by the base profile in full, and an unreadable field is
   * still refused (`MalformedWebhookPayload`, 400 — a human must look). @default none (every type is lenient)
   */
  readonly strictTypes?: Iterable<string>;
  /** An extra check of a strict type's event; throw `MalformedWebhookPayload` to refuse it. @default none */
  readonly check?: (event: ProviderEvent) => void;
}

/**
 * Wraps a provider profile so that every AUTHENTIC delivery with an event id is acknowledged exactly once,
 * whatever its type — because a provider retries any non-2xx for days (Stripe up to 3 days), an event type your
 * handler ignores must not be refused 400 for a field it never reads:
 * - a type in `strictTypes` is read by `base` in full (and `check`ed): a broken field is still a 400;
 * - any other JSON object body with an event id (`eventId`) is read by `base` when it can be, and otherwise
 *   reduced to its id, its `type` (or {@link NO_EVENT_TYPE}) and its raw payload (every other field `null`), so
 *   the intake claims a receipt for it and the handler can acknowledge it; redeliveries are duplicates;
 * - a body that is not a JSON object, or has no event id, is still refused (`MalformedWebhookPayload`, 400).
 * The reference service wraps its Stripe and Standard Webhooks profiles this way (docs/service.md).
 * @throws {MalformedWebhookPayload} from `extract`, as listed.
 * @see docs/webhooks.md "Behaviour"; Stripe "Return a 2xx status code quickly" (docs.stripe.com/webhooks).
 * @example acknowledgingProfile(stripeProfile(), { eventId: (body) => (typeof body.id === 'string' ? body.id : null), strictTypes: ['invoice.paid'] })
 */
export function acknowledgingProfile(base: ProviderProfile, options: AcknowledgingProfileOptions): ProviderProfile {
  const read = new PayloadReader(base.provider);
  const strict = new Set(options.strictTypes ?? []);

  function extract(input: ExtractInput): ProviderEvent {
    const body = read.json(input.rawBody);
    const type = typeof body.type === 'string' && body.type !== '' ? body.type : null;
    if (type !== null && strict.has(type)) {
      const event = base.extract(input);
      options.check?.(event);
      return event;
    }
    try {
      return base.extract(input);
    } catch (error) {
      if (!(error instanceof MalformedWebhookPayload)) throw error;
      const eventId = options.eventId(body, input.headers);
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
