import { type HeadersInput, headerValue } from '../verify/headers.js';
import { PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/** Options of {@link standardWebhooksProfile}. */
export interface StandardWebhooksProfileOptions {
  /** Provider name for receipts and journal (the sender, e.g. `resend`, `clerk`). @default 'standard-webhooks' */
  provider?: string;
}

function messageId(headers: HeadersInput | undefined): string | undefined {
  if (headers === undefined) return undefined;
  return headerValue(headers, 'svix-id') ?? headerValue(headers, 'webhook-id');
}

/**
 * Any Standard Webhooks sender: the payload is `{ type, timestamp (ISO 8601), data }` and the event id is the
 * `webhook-id` header (`svix-id` for Svix), which stays the same on every retry, so it is the receipt key.
 * `objectId` is `data.id` when present. The spec defines no money fields, so amount, currency and merchant
 * reference are `null`; wrap this profile to read a sender's own fields.
 * @throws {MalformedWebhookPayload} also when no `webhook-id` / `svix-id` header is given.
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md ("Payload
 * structure", "Webhook metadata").
 */
export function standardWebhooksProfile(options: StandardWebhooksProfileOptions = {}): ProviderProfile {
  const read = new PayloadReader(options.provider ?? 'standard-webhooks');

  function extract({ rawBody, headers }: ExtractInput): ProviderEvent {
    const body = read.json(rawBody);
    const eventId = messageId(headers) ?? read.fail('webhook-id header', 'is required');
    const eventType = read.string(body.type, 'type');
    const occurredAtMs = body.timestamp === undefined ? null : read.isoTimeAsMs(body.timestamp, 'timestamp');
    const data = read.optionalObject(body.data, 'data');
    const id = data?.id;
    return {
      provider: read.provider,
      eventId,
      eventType,
      objectId: typeof id === 'string' && id !== '' ? id : null,
      paymentId: null,
      amountMinor: null,
      currency: null,
      merchantReference: null,
      occurredAtMs,
      key: read.key(eventId, 'webhook-id header'),
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'none', extract };
}
