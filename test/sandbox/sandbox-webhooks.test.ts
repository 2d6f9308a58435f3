import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreatePaymentRequest } from '../../packages/payonce/src/payments/payment-provider.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import type { PaymentPlan } from '../../packages/sandbox/src/payment-plan.js';
import { SandboxClient } from '../../packages/sandbox/src/sandbox-client.js';
import type { SandboxOptions } from '../../packages/sandbox/src/sandbox-options.js';
import type { SentDelivery } from '../../packages/sandbox/src/sent-delivery.js';
import { type Responder, startTarget } from './webhook-target.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A sandbox (retries compressed 1000×) sending to a fresh target, and a client. */
async function setup(options: SandboxOptions = {}, respond?: Responder, answerDelayMs = 0) {
  const target = await startTarget(respond, answerDelayMs);
  cleanups.push(target.close);
  const sandbox = await createSandbox({ webhookUrl: target.url, timeScale: 0.001, ...options });
  cleanups.push(sandbox.close);
  const client = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 10_000 });
  cleanups.push(() => client.close());
  return { target, sandbox, client };
}

function newRequest(): CreatePaymentRequest {
  const attempt = randomUUID();
  return {
    idempotencyKey: `payment-attempt:${attempt}`,
    merchantReference: attempt,
    orderId: `order-${attempt.slice(0, 8)}`,
    amountMinor: 4200,
    currency: 'USD',
  };
}

async function pay(sandbox: Sandbox, client: SandboxClient, plan: PaymentPlan = {}) {
  const req = newRequest();
  sandbox.controls.plan({ orderId: req.orderId }, plan);
  const payment = await client.createPayment(req);
  expect(await sandbox.controls.idle(20_000)).toBe(true);
  return { req, payment };
}

function verifierFor(sandbox: Sandbox) {
  const { scheme, secret } = sandbox.controls.signing();
  return scheme === 'stripe' ? stripeScheme({ secrets: secret }) : standardWebhooksScheme({ secrets: secret });
}

const bytes = (text: string) => new TextEncoder().encode(text);

function verify(sandbox: Sandbox, record: SentDelivery) {
  return verifierFor(sandbox).verify({
    rawBody: bytes(record.requestBody),
    headers: record.requestHeaders,
    nowMs: Date.now(),
  });
}

describe('sandbox webhooks: signatures and payload shapes', () => {
  it('Stripe scheme: every delivery verifies with stripeScheme and extracts with stripeProfile', async () => {
    const { sandbox, client, target } = await setup();
    const { req, payment } = await pay(sandbox, client, { twoEventIds: true, refundAfterSettle: true });
    const deliveries = sandbox.controls.deliveries({ merchantReference: req.merchantReference });
    expect(deliveries.map((d) => d.eventType)).toEqual([
      'payment_intent.succeeded',
      'charge.succeeded',
      'charge.refunded',
    ]);
    expect(target.received.map((r) => r.body)).toEqual(deliveries.map((d) => d.requestBody));
    const profile = stripeProfile();
    for (const received of target.received) {
      expect(
        verifierFor(sandbox).verify({ rawBody: received.rawBody, headers: received.headers, nowMs: Date.now() }),
      ).toMatchObject({ ok: true, scheme: 'stripe' });
      const event = profile.extract({ rawBody: received.rawBody });
      expect(event).toMatchObject({
        provider: 'stripe',
        paymentId: payment.paymentId,
        amountMinor: 4200,
        currency: 'USD',
        merchantReference: req.merchantReference,
      });
      expect(event.eventId).toMatch(/^evt_/);
    }
    const events = target.received.map((r) => profile.extract({ rawBody: r.rawBody }));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);
    expect(events.map((e) => e.objectId?.slice(0, 3))).toEqual(['pi_', 'ch_', 'ch_']);
    const refunded = JSON.parse(target.received[2]?.body ?? '{}');
    expect(refunded.data.object).toMatchObject({ object: 'charge', amount_refunded: 4200, refunded: true });
    expect(sandbox.controls.ledger(req.merchantReference)).toMatchObject({ chargeCount: 1, refundCount: 1 });
  });

  it('Standard Webhooks scheme: verifies with standardWebhooksScheme; envelope { type, timestamp, data }', async () => {
    const { sandbox, client, target } = await setup({ signing: { scheme: 'standard-webhooks' } });
    expect(sandbox.controls.signing().secret).toMatch(/^whsec_/);
    const { req, payment } = await pay(sandbox, client);
    expect(target.received).toHaveLength(1);
    const [received] = target.received;
    if (received === undefined) throw new Error('no delivery');
    expect(
      verifierFor(sandbox).verify({ rawBody: received.rawBody, headers: received.headers, nowMs: Date.now() }),
    ).toMatchObject({ ok: true, scheme: 'standard-webhooks' });
    const event = standardWebhooksProfile().extract({ rawBody: received.rawBody, headers: received.headers });
    expect(event).toMatchObject({
      eventId: received.headers['webhook-id'],
      eventType: 'payment_intent.succeeded',
      objectId: payment.paymentId,
    });
    expect(event.eventId).toMatch(/^msg_/);
    const body = JSON.parse(received.body);
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body.data).toMatchObject({
      object: 'payment_intent',
      amount: 4200,
      currency: 'usd',
      status: 'succeeded',
      metadata: { merchant_reference: req.merchantReference },
    });
  });

  it('the scheme can be switched during a run; earlier events keep their own', async () => {
    const { sandbox, client, target } = await setup();
    await pay(sandbox, client);
    const switched = sandbox.controls.setSigning({ scheme: 'standard-webhooks' });
    await pay(sandbox, client);
    expect(target.received[0]?.headers['stripe-signature']).toBeDefined();
    expect(target.received[1]?.headers['webhook-signature']).toBeDefined();
    const swVerifier = standardWebhooksScheme({ secrets: switched.secret });
    const second = target.received[1];
    if (second === undefined) throw new Error('no second delivery');
    expect(swVerifier.verify({ rawBody: second.rawBody, headers: second.headers, nowMs: Date.now() }).ok).toBe(true);
  });
});

describe('sandbox webhooks: at-least-once delivery', () => {
  it('retries on the schedule until the target answers 2xx, same event id and body each time', async () => {
    const { sandbox, client, target } = await setup({}, (_r, n) => ({ status: n <= 2 ? 500 : 201 }));
    const { req } = await pay(sandbox, client);
    const log = sandbox.controls.deliveries({ merchantReference: req.merchantReference });
    expect(log.map((d) => [d.kind, d.attempt, d.status])).toEqual([
      ['attempt', 1, 500],
      ['attempt', 2, 500],
      ['attempt', 3, 201],
    ]);
    expect(new Set(log.map((d) => d.eventId)).size).toBe(1);
    expect(new Set(log.map((d) => d.requestBody)).size).toBe(1);
    expect(log.map((d) => d.responseBody)).toEqual(['answer 1', 'answer 2', 'answer 3']);
    for (const record of log) expect(verify(sandbox, record).ok).toBe(true);
    expect(target.received).toHaveLength(3);
  });

  it('stops after the last entry of the schedule, and at once on 410 Gone', async () => {
    const failing = await setup({ retryScheduleMs: [0, 10, 10, 10] }, () => ({ status: 503 }));
    await pay(failing.sandbox, failing.client);
    expect(failing.target.received).toHaveLength(4);
    const gone = await setup({}, () => ({ status: 410 }));
    await pay(gone.sandbox, gone.client);
    expect(gone.target.received).toHaveLength(1);
  });

  it('a Retry-After on 429 postpones the next attempt (scaled like the schedule)', async () => {
    const { sandbox, client } = await setup({ timeScale: 1, retryScheduleMs: [0, 10, 10] }, (_r, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    await pay(sandbox, client, { settleAfterMs: 0 });
    const [first, second] = sandbox.controls.deliveries();
    expect([first?.status, second?.status]).toEqual([429, 200]);
    expect((second?.sentAtMs ?? 0) - (first?.finishedAtMs ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('a target slower than deliveryTimeoutMs is a failed attempt with no status, and is retried', async () => {
    const { sandbox, client, target } = await setup(
      { deliveryTimeoutMs: 200, retryScheduleMs: [0, 10] },
      undefined,
      1_500,
    );
    await pay(sandbox, client);
    const log = sandbox.controls.deliveries();
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [1, null],
      [2, null],
    ]);
    expect(log[0]?.error).toMatch(/timeout/i);
    expect(target.received).toHaveLength(2);
  });

  it('close() ends hung requests and pending retries promptly', async () => {
    const sandbox = await createSandbox({ timeScale: 1 });
    const client = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
    cleanups.push(() => client.close());
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { responseFault: 'hang-after-commit', hangMs: 60_000 });
    const hung = client.createPayment(req).catch((e: unknown) => e);
    await expect.poll(() => sandbox.controls.payments().length, { timeout: 5_000 }).toBe(1);
    const started = Date.now();
    await sandbox.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await hung).toMatchObject({ code: 'SANDBOX_CONNECTION_LOST' });
  });

  it('an event created before any target is configured is delivered once one is', async () => {
    const target = await startTarget();
    cleanups.push(target.close);
    const sandbox = await createSandbox({ retryScheduleMs: [0, 300, 300, 300, 300] });
    cleanups.push(sandbox.close);
    const client = new SandboxClient({ baseUrl: sandbox.url });
    cleanups.push(() => client.close());
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { settleAfterMs: 0 });
    await client.createPayment(req);
    await expect.poll(() => sandbox.controls.deliveries().length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(sandbox.controls.deliveries()[0]).toMatchObject({ url: null, status: null });
    sandbox.controls.setWebhookUrl(target.url);
    expect(await sandbox.controls.idle(20_000)).toBe(true);
    expect(target.received).toHaveLength(1);
    expect(sandbox.controls.deliveries().at(-1)).toMatchObject({ url: target.url, status: 200 });
  });
});

describe('sandbox webhooks: fault knobs', () => {
  it('duplicateDeliveries: the same event again after it was delivered', async () => {
    const { sandbox, client, target } = await setup();
    await pay(sandbox, client, { duplicateDeliveries: 2 });
    expect(sandbox.controls.deliveries().map((d) => d.kind)).toEqual(['attempt', 'duplicate', 'duplicate']);
    expect(new Set(target.received.map((r) => r.body)).size).toBe(1);
  });

  it('parallelDeliveries: copies in flight at the same time', async () => {
    const { sandbox, client, target } = await setup({}, undefined, 300);
    await pay(sandbox, client, { parallelDeliveries: 4 });
    const log = sandbox.controls.deliveries();
    expect(log).toHaveLength(4);
    expect(target.received).toHaveLength(4);
    const lastSent = Math.max(...log.map((d) => d.sentAtMs));
    const firstAnswered = Math.min(...log.map((d) => d.finishedAtMs));
    expect(lastSent).toBeLessThan(firstAnswered);
    expect(new Set(log.map((d) => d.eventId)).size).toBe(1);
  });

  it('reorder: the events of one settlement arrive newest first', async () => {
    const { sandbox, client, target } = await setup();
    const types = () => target.received.map((r) => JSON.parse(r.body).type);
    await pay(sandbox, client, { twoEventIds: true, refundAfterSettle: true, reorder: true });
    expect(types()).toEqual(['charge.refunded', 'charge.succeeded', 'payment_intent.succeeded']);
  });

  it('webhookBeforeResponse: the event has been delivered before the create answer arrives', async () => {
    const { sandbox, client, target } = await setup();
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { webhookBeforeResponse: true });
    const payment = await client.createPayment(req);
    expect(target.received).toHaveLength(1);
    expect(payment.status).toBe('succeeded');
    expect(JSON.parse(target.received[0]?.body ?? '{}').data.object.id).toBe(payment.paymentId);
  });

  it('forgedSignature and tamperedAmount: injected copies that fail verification or carry a foreign amount', async () => {
    const { sandbox, client } = await setup();
    const profile = stripeProfile();
    await pay(sandbox, client, { forgedSignature: true, tamperedAmount: 'in-transit' });
    const [forged, inTransit, genuine] = sandbox.controls.deliveries();
    expect([forged?.kind, inTransit?.kind, genuine?.kind]).toEqual([
      'forged-signature',
      'tampered-in-transit',
      'attempt',
    ]);
    if (forged === undefined || inTransit === undefined || genuine === undefined) throw new Error('missing');
    expect(verify(sandbox, forged)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verify(sandbox, inTransit)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(profile.extract({ rawBody: bytes(inTransit.requestBody) }).amountMinor).toBe(8400);
    expect(verify(sandbox, genuine).ok).toBe(true);
    expect(inTransit.eventId).toBe(genuine.eventId);

    const resigned = await setup();
    await pay(resigned.sandbox, resigned.client, { tamperedAmount: 'resigned' });
    const [foreign, real] = resigned.sandbox.controls.deliveries();
    if (foreign === undefined || real === undefined) throw new Error('missing');
    expect(foreign.kind).toBe('tampered-resigned');
    expect(verify(resigned.sandbox, foreign).ok).toBe(true);
    const foreignEvent = profile.extract({ rawBody: bytes(foreign.requestBody) });
    expect(foreignEvent.amountMinor).toBe(8400);
    expect(foreignEvent.eventId).not.toBe(real.eventId);
    expect(foreign.sourceEventId).toBe(real.eventId);
    const delivered = resigned.sandbox.controls.events().filter((e) => e.type === 'payment_intent.succeeded');
    expect(delivered.map((e) => e.id)).toEqual([real.eventId]);
  });

  it('twoEventIds: two events with different ids about one payment', async () => {
    const { sandbox, client, target } = await setup();
    const { payment } = await pay(sandbox, client, { twoEventIds: true });
    const events = target.received.map((r) => stripeProfile().extract({ rawBody: r.rawBody }));
    expect(events.map((e) => e.eventType)).toEqual(['payment_intent.succeeded', 'charge.succeeded']);
    expect(events[0]?.eventId).not.toBe(events[1]?.eventId);
    expect(events.map((e) => e.paymentId)).toEqual([payment.paymentId, payment.paymentId]);
  });

  it('resend: the same event 5× in parallel, each copy freshly signed and logged with the answer', async () => {
    const { sandbox, client, target } = await setup({}, (_r, n) => ({ status: n === 1 ? 200 : 202 }));
    await pay(sandbox, client);
    const event = sandbox.controls.events().find((e) => e.type === 'payment_intent.succeeded');
    if (event === undefined) throw new Error('no event');
    const copies = await sandbox.controls.resend(event.id, 5, 5);
    expect(copies.map((d) => d.kind)).toEqual(Array(5).fill('resend'));
    expect(copies.every((d) => d.status === 202 && d.eventId === event.id && verify(sandbox, d).ok)).toBe(true);
    expect(target.received).toHaveLength(6);
  });

  it('a run-level default applies to every payment; a control request over HTTP changes it', async () => {
    const { sandbox, client } = await setup({ defaults: { duplicateDeliveries: 1 } });
    await pay(sandbox, client);
    expect(sandbox.controls.deliveries().map((d) => d.kind)).toEqual(['attempt', 'duplicate']);
    const response = await fetch(`${sandbox.url}/_sandbox/defaults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ duplicateDeliveries: 0 }),
    });
    expect(response.status).toBe(204);
    const { req } = await pay(sandbox, client);
    const log = await fetch(
      `${sandbox.url}/_sandbox/deliveries?merchant_reference=${encodeURIComponent(req.merchantReference)}`,
    );
    const { data } = (await log.json()) as { data: SentDelivery[] };
    expect(data.map((d) => d.kind)).toEqual(['attempt']);
  });
});
