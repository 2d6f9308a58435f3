import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { call, deliver, type Harness, startHarness, until, type ViewBody } from './service-harness.js';

// Issue #34 items 2 and 3: a payment event is about the object kind its type names, and the two webhook endpoints
// (Stripe, Standard Webhooks) do not share one event-id space.

const SW_SECRET = 'whsec_cGF5b25jZS1leGFtcGxlLXBsYWNlaG9sZGVyLWtleSE=';
const nowSec = () => Math.floor(Date.now() / 1000);

/** An order whose payment the sandbox holds in `processing`: only the events a test sends can settle it. */
async function heldOrder(h: Harness) {
  const url = h.service.url;
  const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
    body: { amountMinor: 5000, currency: 'EUR' },
  });
  const orderId = created.body.order.id;
  h.sandbox.controls.plan({ orderId }, { outcome: 'hold' });
  const checkout = await call<{ attempt: { id: string } }>(url, 'POST', `/orders/${orderId}/checkout`, {
    key: `held-${orderId}`,
  });
  expect(checkout.status, checkout.text).toBe(201);
  const attemptId = checkout.body.attempt.id;
  const paymentId = await until(async () => {
    const view = await call<ViewBody>(url, 'GET', `/orders/${orderId}`);
    return view.body.attempts.find((a) => a.id === attemptId)?.providerPaymentId;
  });
  return { orderId, attemptId, paymentId };
}

/** Delivers a signed Stripe event `eventId` of `type` about `object` to the service's Stripe endpoint. */
function sendStripe(h: Harness, eventId: string, type: string, object: Record<string, unknown>) {
  const body = JSON.stringify({ id: eventId, object: 'event', created: nowSec(), type, data: { object } });
  return deliver(h.service.url, 'stripe', body, signedHeaders(h.sandbox.controls.signing(), eventId, body, nowSec()));
}

describe('payment events on the reference service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ standardWebhooksSecrets: SW_SECRET, connectWebhooks: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  const orderStatus = async (orderId: string) => (await h.service.context.payments.findOrder(orderId))?.status;

  it('a signed payment_intent.succeeded whose object is a refund is refused 400 and pays nothing', async () => {
    const { orderId, attemptId, paymentId } = await heldOrder(h);
    const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
    const refund = {
      id: `re_${randomUUID().slice(0, 8)}`,
      object: 'refund',
      amount: 5000,
      currency: 'eur',
      payment_intent: paymentId,
      metadata: { merchant_reference: attemptId, order_id: orderId },
    };
    const answer = await sendStripe(h, eventId, 'payment_intent.succeeded', refund);
    expect(answer.status, answer.text).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD' });
    expect(await orderStatus(orderId)).toBe('awaiting_payment');

    const charge = { ...refund, id: `ch_${randomUUID().slice(0, 8)}`, object: 'charge', status: 'succeeded' };
    const chargeId = `evt_${randomUUID().replaceAll('-', '')}`;
    const second = await sendStripe(h, chargeId, 'payment_intent.succeeded', charge);
    expect(second.status, second.text).toBe(400);
    expect(await orderStatus(orderId)).toBe('awaiting_payment');
  });

  it('a Stripe event with the id a Standard Webhooks delivery already used is applied, not answered as that one', async () => {
    const { orderId, attemptId, paymentId } = await heldOrder(h);
    const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
    const intent = {
      id: paymentId,
      object: 'payment_intent',
      amount: 5000,
      currency: 'eur',
      status: 'processing',
      metadata: { merchant_reference: attemptId, order_id: orderId },
    };
    const swBody = JSON.stringify({
      type: 'payment_intent.processing',
      timestamp: new Date().toISOString(),
      data: intent,
    });
    const swHeaders = signedHeaders({ scheme: 'standard-webhooks', secret: SW_SECRET }, eventId, swBody, nowSec());
    const first = await deliver(h.service.url, 'standard-webhooks', swBody, swHeaders);
    expect(first.status, first.text).toBe(200);

    const answer = await sendStripe(h, eventId, 'payment_intent.succeeded', { ...intent, status: 'succeeded' });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ received: true, decision: 'applied' });
    expect(await orderStatus(orderId)).not.toBe('awaiting_payment');
    const view = (await call<ViewBody>(h.service.url, 'GET', `/orders/${orderId}`)).body;
    expect(view.paidTransitions).toBe(1);
  });
});
