import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { InvalidPaymentEvent } from '../../packages/payonce/src/payments/invalid-payment-event.js';
import { MalformedWebhookPayload } from '../../packages/payonce/src/webhooks/providers/malformed-webhook-payload.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { orderIdOf, paymentEventOf } from '../../packages/service/src/payment-event-of.js';
import { sandboxStandardWebhooksProfile } from '../../packages/service/src/sandbox-standard-webhooks-profile.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';

const SECRET = 'whsec_cGF5b25jZS1leGFtcGxlLXBsYWNlaG9sZGVyLWtleSE=';
const bytes = (text: string) => new TextEncoder().encode(text);

function swDelivery(type: string, data: Record<string, unknown>, id = 'msg_test_1') {
  const body = JSON.stringify({ type, timestamp: '2026-11-30T06:00:00.000Z', data });
  const headers = signedHeaders({ scheme: 'standard-webhooks', secret: SECRET }, id, body, 1_796_000_000);
  return { rawBody: bytes(body), headers };
}

const intent = {
  id: 'pi_123',
  object: 'payment_intent',
  amount: 1999,
  currency: 'eur',
  metadata: { merchant_reference: 'attempt-1', order_id: 'order-1' },
};

describe('sandboxStandardWebhooksProfile', () => {
  it('reads a PaymentIntent in data: id, payment id, exact minor units, upper-case currency, reference', () => {
    const event = sandboxStandardWebhooksProfile().extract(swDelivery('payment_intent.succeeded', intent));
    expect(event).toMatchObject({
      provider: 'standard-webhooks',
      eventId: 'msg_test_1',
      eventType: 'payment_intent.succeeded',
      objectId: 'pi_123',
      paymentId: 'pi_123',
      amountMinor: 1999,
      currency: 'EUR',
      merchantReference: 'attempt-1',
      occurredAtMs: Date.parse('2026-11-30T06:00:00.000Z'),
    });
    expect(event.key?.toString()).toContain('msg_test_1');
  });

  it('reads a Charge in data: the payment id is its payment_intent', () => {
    const charge = { ...intent, id: 'ch_1', object: 'charge', payment_intent: 'pi_123', amount_refunded: 1999 };
    const event = sandboxStandardWebhooksProfile().extract(swDelivery('charge.refunded', charge));
    expect(event).toMatchObject({ objectId: 'ch_1', paymentId: 'pi_123', amountMinor: 1999 });
  });

  it.each([
    ['a fractional amount', { ...intent, amount: 19.99 }],
    ['an amount as a string', { ...intent, amount: '1999' }],
    ['an unsafe amount', { ...intent, amount: 2 ** 53 }],
    ['a currency that is not 3 letters', { ...intent, currency: 'euro' }],
  ])('refuses %s', (_name, data) => {
    expect(() => sandboxStandardWebhooksProfile().extract(swDelivery('payment_intent.succeeded', data))).toThrow(
      MalformedWebhookPayload,
    );
  });
});

describe('paymentEventOf', () => {
  it('maps every acted-on type to its status and keys the event with the payment provider name', () => {
    const cases: [string, string][] = [
      ['payment_intent.succeeded', 'succeeded'],
      ['charge.succeeded', 'succeeded'],
      ['payment_intent.payment_failed', 'failed'],
      ['payment_intent.canceled', 'cancelled'],
      ['charge.refunded', 'refunded'],
      ['payment_intent.processing', 'pending'],
      ['payment_intent.requires_action', 'requires_action'],
    ];
    for (const [type, status] of cases) {
      const object = type.startsWith('charge.')
        ? { ...intent, id: 'ch_1', object: 'charge', payment_intent: 'pi_123' }
        : intent;
      const event = sandboxStandardWebhooksProfile().extract(swDelivery(type, object));
      const mapped = paymentEventOf(event, 'stripe');
      expect(mapped?.status, type).toBe(status);
      expect(mapped?.provider).toBe('stripe');
      expect(mapped?.key?.provider).toBe('stripe');
      expect(mapped?.key?.externalId).toBe('standard-webhooks:msg_test_1');
      expect(mapped?.orderId).toBe('order-1');
    }
  });

  it('refuses a payment event whose object is not of the kind its type names (a refund is not a PaymentIntent)', () => {
    const refund = { ...intent, id: 're_1', object: 'refund', payment_intent: 'pi_123' };
    for (const type of ['payment_intent.succeeded', 'charge.succeeded', 'charge.refunded']) {
      const event = sandboxStandardWebhooksProfile().extract(swDelivery(type, refund));
      expect(() => paymentEventOf(event, 'stripe'), type).toThrow(InvalidPaymentEvent);
    }
    const intentAsCharge = sandboxStandardWebhooksProfile().extract(swDelivery('charge.succeeded', intent));
    expect(() => paymentEventOf(intentAsCharge, 'stripe')).toThrow(/must be a charge object/);
  });

  it('returns null for a type the service does not act on, or an inherited property name', () => {
    for (const type of ['customer.created', 'toString', '__proto__']) {
      expect(paymentEventOf(sandboxStandardWebhooksProfile().extract(swDelivery(type, intent)), 'stripe')).toBeNull();
    }
  });

  it('reads the order id of a Stripe envelope from data.object.metadata', () => {
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      created: 1_796_000_000,
      data: { object: intent },
    });
    const event = stripeProfile().extract({ rawBody: bytes(body) });
    expect(paymentEventOf(event, 'stripe')).toMatchObject({ orderId: 'order-1', amountMinor: 1999, currency: 'EUR' });
    expect(orderIdOf({ data: { object: { metadata: {} } } })).toBeNull();
    expect(orderIdOf(null)).toBeNull();
  });
});

describe('resolveServiceConfig', () => {
  it('applies the defaults of docs/service.md', () => {
    expect(resolveServiceConfig({})).toMatchObject({
      databaseUrl: './payonce.sqlite',
      port: 3000,
      host: '127.0.0.1',
      providerTimeoutMs: 5_000,
      workerPollMs: 1_000,
      leaseMs: 30_000,
      reconcileEveryMs: 10_000,
      reconcileAfterMs: 60_000,
      fulfilDelayMs: 0,
      worker: true,
      adminToken: null,
      redisUrl: null,
    });
    expect(resolveServiceConfig({ stripeWebhookSecrets: 'whsec_a, whsec_b,' }).stripeWebhookSecrets).toEqual([
      'whsec_a',
      'whsec_b',
    ]);
  });

  it.each([
    [{ port: 70_000 }],
    [{ port: -1 }],
    [{ leaseMs: 0 }],
    [{ fulfilDelayMs: 1.5 }],
    [{ providerUrl: 'ftp://example.invalid' }],
    [{ providerUrl: 'not a url' }],
    [{ redisPrefix: 'a{b}' }],
    [{ databaseUrl: '  ' }],
  ])('refuses %j with InvalidOption', (settings) => {
    expect(() => resolveServiceConfig(settings)).toThrow(InvalidOption);
  });
});
