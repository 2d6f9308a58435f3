import { describe, expect, it } from 'vitest';
import {
  standardWebhooksData,
  stripeEventObject,
  stripeIdOf,
  stripeObject,
} from '../../packages/payonce/src/webhooks/providers/event-objects.js';
import { MalformedWebhookPayload } from '../../packages/payonce/src/webhooks/providers/malformed-webhook-payload.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { bodyBytes, readFixture } from './fixtures.js';
import { invoicePaidBody } from './support/stripe-deliveries.js';

// Typed access to the provider's object (issue 13 item 4), on Stripe's captured events and OpenAPI resource
// fixtures (../shared/fixtures/providers/stripe/payloads) and the Standard Webhooks example payload.

const stripe = stripeProfile();
const captured = (name: string) =>
  stripe.extract({
    rawBody: bodyBytes((readFixture(`stripe/payloads/${name}.json`) as { raw_body: string }).raw_body),
  });
const resources = (
  readFixture('stripe/payloads/openapi-resource-fixtures.json') as { resources: Record<string, object> }
).resources;
const wrapped = (type: string, object: object) =>
  stripe.extract({
    rawBody: Buffer.from(
      JSON.stringify({ id: `evt_${type}`, object: 'event', type, created: 1_700_000_000, data: { object } }),
    ),
  });

describe('stripeObject', () => {
  it('types the charge of a captured charge.refunded event (customer, payment intent, refunded amount)', () => {
    const charge = stripeObject(captured('charge.refunded'), 'charge');
    expect(charge).not.toBeNull();
    expect(stripeIdOf(charge?.customer)).toBe('cus_J7Mkgr8mvbl1eK');
    expect(stripeIdOf(charge?.payment_intent)).toBe('pi_3Kl36gJDPojXS6LN02fQVtKR');
    expect(charge?.amount_refunded).toBe(2500);
    expect(stripeObject(captured('charge.refunded'), 'invoice')).toBeNull(); // another object type
  });

  it('types a Checkout Session, a PaymentIntent and a Refund of the OpenAPI fixtures', () => {
    const session = stripeObject(captured('checkout.session.completed'), 'checkout.session');
    expect(session?.amount_total).toBe(999);
    expect(session?.payment_status).toBe('paid');
    for (const type of ['payment_intent', 'charge', 'refund', 'checkout.session'] as const) {
      const object = resources[type] as { id: string };
      expect(stripeObject(wrapped(`${type}.test`, object), type)?.id).toBe(object.id);
    }
  });

  it('types an invoice (customer, amount_paid, metadata) and gives the profile its amount', () => {
    const event = stripe.extract({ rawBody: Buffer.from(invoicePaidBody('evt_inv_1', 'in_1', 4200)) });
    const invoice = stripeObject(event, 'invoice');
    expect([invoice?.customer, invoice?.amount_paid, invoice?.metadata?.plan]).toEqual([
      'cus_placeholder_1',
      4200,
      'credits-100',
    ]);
    expect([event.amountMinor, event.currency]).toEqual([4200, 'USD']);
  });

  it('refuses an object whose declared field has the wrong type, and keeps unknown objects reachable raw', () => {
    const bad = wrapped('invoice.paid', {
      id: 'in_x',
      object: 'invoice',
      currency: 'usd',
      amount_due: '1',
      amount_paid: 1,
    });
    expect(() => stripeObject(bad, 'invoice')).toThrow(MalformedWebhookPayload);
    expect(() => stripeObject(bad, 'invoice')).toThrow(/data\.object\.amount_due/);
    const plan = wrapped('plan.created', { id: 'plan_1', object: 'plan', amount: 5 });
    expect(stripeObject(plan, 'invoice')).toBeNull();
    expect(stripeEventObject(plan)).toMatchObject({ id: 'plan_1', object: 'plan' });
  });
});

describe('standardWebhooksData', () => {
  it("returns the data object of the spec's example payload", () => {
    const example = readFixture('standard-webhooks/payloads/example.event.json') as {
      raw_body?: string;
      body?: unknown;
    };
    const raw = example.raw_body ?? JSON.stringify(example.body);
    const event = standardWebhooksProfile().extract({ rawBody: bodyBytes(raw), headers: { 'webhook-id': 'msg_1' } });
    expect(standardWebhooksData(event)).toEqual((JSON.parse(raw) as { data: unknown }).data);
  });
});
