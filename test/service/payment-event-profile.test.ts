import { describe, expect, it } from 'vitest';
import { MalformedWebhookPayload } from '../../packages/payonce/src/webhooks/providers/malformed-webhook-payload.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { headerValue } from '../../packages/payonce/src/webhooks/verify/headers.js';
import { NO_EVENT_TYPE, paymentEventProfile } from '../../packages/service/src/payment-event-profile.js';
import { sandboxStandardWebhooksProfile } from '../../packages/service/src/sandbox-standard-webhooks-profile.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const stripe = paymentEventProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null));
const sw = paymentEventProfile(sandboxStandardWebhooksProfile(), (_body, headers) =>
  headers === undefined ? null : (headerValue(headers, 'svix-id') ?? headerValue(headers, 'webhook-id') ?? null),
);

describe('paymentEventProfile (the service takes every authentic delivery with an event id)', () => {
  it('reads a Stripe body with an id and no type as an event with no type, keyed by its id', () => {
    const event = stripe.extract({ rawBody: bytes('{"id":"evt_test_webhook","object":"event"}') });
    expect(event).toMatchObject({ provider: 'stripe', eventId: 'evt_test_webhook', eventType: NO_EVENT_TYPE });
    expect(event.key?.externalId).toBe('evt_test_webhook');
    expect(event.payload).toEqual({ id: 'evt_test_webhook', object: 'event' });
  });

  it('reads a Standard Webhooks / Svix body with no type by its id header', () => {
    for (const name of ['webhook-id', 'svix-id']) {
      const event = sw.extract({ rawBody: bytes('{"test": 2432232314}'), headers: { [name]: 'msg_p5jXN8AQM9LWM0D4' } });
      expect(event).toMatchObject({ eventId: 'msg_p5jXN8AQM9LWM0D4', eventType: NO_EVENT_TYPE });
      expect(event.key?.provider).toBe('standard-webhooks');
    }
  });

  it('acknowledges a type it does not handle even when its other fields are unreadable', () => {
    const raw = '{"id":"evt_1","type":"plan.created","data":{"object":{"amount":"twelve","currency":7}}}';
    expect(() => stripeProfile().extract({ rawBody: bytes(raw) })).toThrow(MalformedWebhookPayload);
    expect(stripe.extract({ rawBody: bytes(raw) })).toMatchObject({ eventId: 'evt_1', eventType: 'plan.created' });
  });

  it.each([
    ['not JSON', 'aaaa'],
    ['a JSON array', '[1,2]'],
    ['no id', '{"object":"event","type":"plan.created","data":"x"}'],
    [
      'a payment event with a fractional amount',
      '{"id":"evt_2","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","object":"payment_intent","amount":1.5,"currency":"eur"}}}',
    ],
    [
      'a payment event naming no payment',
      '{"id":"evt_3","type":"charge.succeeded","data":{"object":{"id":"ch_1","object":"charge","amount":100,"currency":"eur","payment_intent":null}}}',
    ],
  ])('still refuses %s with MalformedWebhookPayload', (_what, raw) => {
    expect(() => stripe.extract({ rawBody: bytes(raw) })).toThrow(MalformedWebhookPayload);
  });

  it('refuses a Standard Webhooks body without an id header', () => {
    expect(() => sw.extract({ rawBody: bytes('{"test": 1}'), headers: {} })).toThrow(MalformedWebhookPayload);
  });
});
