import { headerValue } from '../verify/headers.js';
import { type JsonObject, PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/**
 * GitHub webhooks — not payments; shows the toolkit is general. The event id is the `X-GitHub-Delivery` GUID
 * (the same on redelivery, so it is the receipt key), the type is `X-GitHub-Event` plus `.action` when the
 * payload has one (`issues.opened`). Accepts `application/json` bodies and the `application/x-www-form-urlencoded`
 * form whose `payload` field holds the JSON. No money fields; GitHub sends no event time header.
 * @throws {MalformedWebhookPayload} missing `X-GitHub-Delivery` / `X-GitHub-Event`, body not a JSON object.
 * @see https://docs.github.com/en/webhooks/webhook-events-and-payloads#delivery-headers.
 */
export function githubProfile(): ProviderProfile {
  const read = new PayloadReader('github');

  function extract({ rawBody, headers }: ExtractInput): ProviderEvent {
    const h = (name: string) => (headers === undefined ? undefined : headerValue(headers, name));
    const delivery = h('X-GitHub-Delivery') ?? read.fail('X-GitHub-Delivery header', 'is required');
    const event = h('X-GitHub-Event') ?? read.fail('X-GitHub-Event header', 'is required');
    let body: JsonObject;
    if (h('Content-Type')?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      const payload = new URLSearchParams(read.text(rawBody)).get('payload') ?? read.fail('payload', 'is required');
      body = read.json(new TextEncoder().encode(payload));
    } else {
      body = read.json(rawBody);
    }
    const action = read.optionalString(body.action, 'action');
    return {
      provider: read.provider,
      eventId: delivery,
      eventType: action === null ? event : `${event}.${action}`,
      objectId: null,
      paymentId: null,
      amountMinor: null,
      currency: null,
      merchantReference: null,
      occurredAtMs: null,
      key: read.key(delivery, 'X-GitHub-Delivery header'),
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'none', extract };
}
