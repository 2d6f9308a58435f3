import { describe, expect, it } from 'vitest';
import {
  acknowledgingProfile,
  NO_EVENT_TYPE,
} from '../../packages/payonce/src/webhooks/providers/acknowledging-profile.js';
import { MalformedWebhookPayload } from '../../packages/payonce/src/webhooks/providers/malformed-webhook-payload.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { bodyBytes, readFixture, type Vector } from './fixtures.js';

const profile = acknowledgingProfile(stripeProfile(), {
  eventId: (body) => (typeof body.id === 'string' ? body.id : null),
  strictTypes: ['invoice.paid'],
});
const bytes = (value: unknown) => ({ rawBody: Buffer.from(JSON.stringify(value)) });

describe('acknowledgingProfile (payonce/webhooks)', () => {
  it("acknowledges Stripe's signature test body (no type, no data) as an event without business fields", () => {
    const vector = readFixture('stripe/signature/01-valid-basic.json') as Vector;
    expect(() => stripeProfile().extract({ rawBody: bodyBytes(vector.raw_body) })).toThrow(MalformedWebhookPayload);
    const event = profile.extract({ rawBody: bodyBytes(vector.raw_body) });
    expect(event).toMatchObject({ eventId: 'evt_test_webhook', eventType: NO_EVENT_TYPE, amountMinor: null });
    expect(event.key?.externalId).toBe('evt_test_webhook');
  });

  it('still refuses a strict type with a broken field, and any body without an event id', () => {
    const broken = {
      id: 'evt_1',
      type: 'invoice.paid',
      created: 1,
      data: { object: { object: 'invoice', amount_paid: 'x' } },
    };
    expect(() => profile.extract(bytes(broken))).toThrow(/data\.object\.amount_paid/);
    const lenient = { ...broken, type: 'invoice.updated' };
    expect(profile.extract(bytes(lenient))).toMatchObject({ eventId: 'evt_1', eventType: 'invoice.updated' });
    expect(() => profile.extract(bytes({ type: 'invoice.updated' }))).toThrow(MalformedWebhookPayload);
  });
});
