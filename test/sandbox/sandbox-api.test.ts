import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import type { CreatePaymentRequest } from '../../packages/payonce/src/payments/payment-provider.js';
import { ProviderDeclined } from '../../packages/payonce/src/payments/provider-declined.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import type { PaymentPlan } from '../../packages/sandbox/src/payment-plan.js';
import { SandboxClient } from '../../packages/sandbox/src/sandbox-client.js';
import { SandboxClientError } from '../../packages/sandbox/src/sandbox-client-error.js';
import { SANDBOX_API_KEY } from '../../packages/sandbox/src/wire/api-key.js';
import { startTarget } from './webhook-target.js';

let sandbox: Sandbox;
let target: Awaited<ReturnType<typeof startTarget>>;
let client: SandboxClient;

beforeAll(async () => {
  target = await startTarget();
  sandbox = await createSandbox({ webhookUrl: target.url, timeScale: 0.001 });
  client = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 5_000 });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  await target?.close();
});

function newRequest(overrides: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest {
  const attempt = randomUUID();
  return {
    idempotencyKey: `payment-attempt:${attempt}`,
    merchantReference: attempt,
    orderId: `order-${attempt.slice(0, 8)}`,
    amountMinor: 1999,
    currency: 'EUR',
    ...overrides,
  };
}

/** A raw create request, to see status and headers. */
async function rawCreate(body: unknown, headers: Record<string, string>) {
  const response = await request(`${sandbox.url}/v1/payment_intents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SANDBOX_API_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, json: JSON.parse(text) as Record<string, unknown> };
}

function bodyOf(req: CreatePaymentRequest) {
  return {
    confirm: true,
    amount: req.amountMinor,
    currency: req.currency.toLowerCase(),
    metadata: { merchant_reference: req.merchantReference, order_id: req.orderId },
  };
}

async function unknownError(promise: Promise<unknown>): Promise<SandboxClientError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxClientError);
  return error as SandboxClientError;
}

describe('sandbox: idempotent create', () => {
  it('same key and params → the same payment, replayed with Idempotent-Replayed; one charge', async () => {
    const req = newRequest();
    const headers = { 'idempotency-key': req.idempotencyKey };
    const first = await rawCreate(bodyOf(req), headers);
    const second = await rawCreate(bodyOf(req), headers);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['original-request']).toBe(first.headers['request-id']);
    expect(second.json).toEqual(first.json);
    expect(first.json).toMatchObject({
      object: 'payment_intent',
      amount: 1999,
      currency: 'eur',
      status: 'processing',
      metadata: { merchant_reference: req.merchantReference, order_id: req.orderId },
    });
    expect(await sandbox.controls.idle()).toBe(true);
    expect(sandbox.controls.ledger(req.merchantReference)).toEqual({
      merchantReference: req.merchantReference,
      chargeCount: 1,
      refundCount: 0,
      paymentIds: [first.json.id],
    });
  });

  it('same key, different params → 400 idempotency_error and nothing new is created', async () => {
    const req = newRequest();
    const headers = { 'idempotency-key': req.idempotencyKey };
    expect((await rawCreate(bodyOf(req), headers)).status).toBe(200);
    const other = await rawCreate({ ...bodyOf(req), amount: 2999 }, headers);
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({ error: { type: 'idempotency_error' } });
    const viaClient = await unknownError(client.createPayment({ ...req, amountMinor: 2999 }));
    expect(viaClient).toMatchObject({ code: 'SANDBOX_API_ERROR', status: 400, errorType: 'idempotency_error' });
    expect(await sandbox.controls.idle()).toBe(true);
    expect(sandbox.controls.ledger(req.merchantReference)).toMatchObject({ chargeCount: 1 });
    expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toHaveLength(1);
  });

  it('same key while the first request still runs → 409 idempotency_error', async () => {
    const req = newRequest();
    const before = sandbox.controls.createRequests();
    const hanging = rawCreate(bodyOf(req), {
      'idempotency-key': req.idempotencyKey,
      'sandbox-plan': JSON.stringify({ responseFault: 'hang-before-commit', hangMs: 1_500 } satisfies PaymentPlan),
    }).catch((e: unknown) => e);
    await expect.poll(() => sandbox.controls.createRequests(), { timeout: 5_000 }).toBeGreaterThan(before);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await rawCreate(bodyOf(req), { 'idempotency-key': req.idempotencyKey });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ error: { type: 'idempotency_error' } });
    expect(await hanging).toBeInstanceOf(Error);
    // hang-before-commit created nothing and released the key: a retry creates the payment once.
    const created = await client.createPayment(req);
    expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toEqual([created.paymentId]);
  });

  it('invalid parameters → 400 invalid_request_error, which the client reports as a definitive refusal', async () => {
    const req = newRequest();
    const bad = await rawCreate({ ...bodyOf(req), amount: 19.99 }, { 'idempotency-key': req.idempotencyKey });
    expect(bad).toMatchObject({ status: 400, json: { error: { type: 'invalid_request_error', param: 'amount' } } });
    await expect(client.createPayment({ ...req, currency: 'EURO' })).rejects.toBeInstanceOf(ProviderDeclined);
    expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toEqual([]);
  });
});

describe('sandbox: lost responses, timeouts, slow answers', () => {
  it.each([
    ['drop-after-commit', 'SANDBOX_CONNECTION_LOST'],
    ['gateway-timeout-after-commit', 'SANDBOX_API_ERROR'],
  ] as const)('%s: the payment exists; a retry with the same key returns it; one charge', async (fault, code) => {
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { responseFault: fault });
    const lost = await unknownError(client.createPayment(req));
    expect(lost.code).toBe(code);
    if (fault === 'gateway-timeout-after-commit') expect(lost.status).toBe(504);
    const [paymentId] = sandbox.controls.ledger(req.merchantReference).paymentIds;
    expect(paymentId).toMatch(/^pi_/);
    const retried = await client.createPayment(req);
    expect(retried.paymentId).toBe(paymentId);
    expect(await sandbox.controls.idle()).toBe(true);
    expect(sandbox.controls.charges(req.merchantReference)).toBe(1);
    expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toEqual([paymentId]);
  });

  it('hang-after-commit: the client times out with a distinguishable timeout error; the retry finds the payment', async () => {
    const impatient = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 1_000 });
    try {
      const req = newRequest();
      sandbox.controls.plan({ merchantReference: req.merchantReference }, { responseFault: 'hang-after-commit' });
      const timeout = await unknownError(impatient.createPayment(req));
      expect(timeout).toMatchObject({ code: 'SANDBOX_TIMEOUT', isTimeout: true });
      expect(timeout).not.toBeInstanceOf(ProviderDeclined);
      const again = await impatient.createPayment(req);
      expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toEqual([again.paymentId]);
      expect(await sandbox.controls.idle()).toBe(true);
      expect(sandbox.controls.charges(req.merchantReference)).toBe(1);
    } finally {
      await impatient.close();
    }
  });

  it('slow responses: responseDelayMs holds the answer back', async () => {
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { responseDelayMs: 400 });
    const started = Date.now();
    await client.createPayment(req);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('the order ledger catches one order charged under two merchant references', async () => {
    const first = newRequest();
    const second = { ...newRequest({ amountMinor: 199_900, currency: 'USD' }), orderId: first.orderId };
    const [one, two] = [await client.createPayment(first), await client.createPayment(second)];
    expect(await sandbox.controls.idle()).toBe(true);
    expect(sandbox.controls.charges(first.merchantReference)).toBe(1);
    expect(sandbox.controls.orderLedger(first.orderId)).toMatchObject({
      chargeCount: 2,
      merchantReferences: [first.merchantReference, second.merchantReference],
    });
    // Issue #34 item 27: the counts are named as counts (chargeCount, refundCount), not `charges`.
    const viaHttp = await request(`${sandbox.url}/_sandbox/charges?order_id=${encodeURIComponent(first.orderId)}`);
    expect(await viaHttp.body.json()).toEqual({
      orderId: first.orderId,
      chargeCount: 2,
      refundCount: 0,
      paymentIds: sandbox.controls.orderLedger(first.orderId).paymentIds,
      merchantReferences: [first.merchantReference, second.merchantReference],
      // What each charge took: the storm judges it against the order's amount and currency.
      charges: [
        { paymentId: one.paymentId, chargeId: expect.stringMatching(/^ch_/), amountMinor: 1999, currency: 'EUR' },
        { paymentId: two.paymentId, chargeId: expect.stringMatching(/^ch_/), amountMinor: 199_900, currency: 'USD' },
      ],
    });
  });

  it('a plan is used up: the next create request for the same order is answered normally', async () => {
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { responseFault: 'gateway-timeout-after-commit' }, 2);
    await unknownError(client.createPayment(req));
    await unknownError(client.createPayment(req));
    expect((await client.createPayment(req)).merchantReference).toBe(req.merchantReference);
  });
});

describe('sandbox: outcomes, look-up and cancel through the PaymentProvider port', () => {
  it('decline → ProviderDeclined (replayed for the same key), payment failed, no charge', async () => {
    const req = newRequest();
    sandbox.controls.plan({ orderId: req.orderId }, { outcome: 'decline' });
    await expect(client.createPayment(req)).rejects.toMatchObject({
      code: 'PROVIDER_DECLINED',
      reason: 'generic_decline',
    });
    await expect(client.createPayment(req)).rejects.toBeInstanceOf(ProviderDeclined);
    expect(await client.getPaymentByReference(req.merchantReference)).toMatchObject({ status: 'failed' });
    expect(await sandbox.controls.idle()).toBe(true);
    expect(sandbox.controls.charges(req.merchantReference)).toBe(0);
    expect(sandbox.controls.events({ merchantReference: req.merchantReference }).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'charge.failed',
      'payment_intent.payment_failed',
    ]);
    // The default endpoint receives the event types the service acts on.
    expect(sandbox.controls.deliveries({ merchantReference: req.merchantReference }).map((d) => d.eventType)).toEqual([
      'payment_intent.payment_failed',
    ]);
  });

  it('look-up by merchant reference: null when unknown, the payment with its settled status otherwise', async () => {
    expect(await client.getPaymentByReference(`unknown-${randomUUID()}`)).toBeNull();
    const quote = newRequest({ merchantReference: `it's \\ ${randomUUID()}` });
    const created = await client.createPayment(quote);
    expect(created).toMatchObject({ status: 'pending', amountMinor: 1999, currency: 'EUR', actionUrl: null });
    expect(await sandbox.controls.idle()).toBe(true);
    expect(await client.getPaymentByReference(quote.merchantReference)).toEqual({ ...created, status: 'succeeded' });
  });

  it('requires_action carries an action URL and settles on command; cancel of a held payment cancels it', async () => {
    const action = newRequest();
    sandbox.controls.plan({ orderId: action.orderId }, { outcome: 'requires_action' });
    const pending = await client.createPayment(action);
    expect(pending.status).toBe('requires_action');
    expect(pending.actionUrl).toBe(`${sandbox.url}/pay/${pending.paymentId}`);
    await sandbox.controls.settle(pending.paymentId, 'succeed');
    expect(await client.getPaymentByReference(action.merchantReference)).toMatchObject({ status: 'succeeded' });
    expect(await client.cancel(pending.paymentId)).toMatchObject({ status: 'succeeded' });

    const held = newRequest();
    sandbox.controls.plan({ orderId: held.orderId }, { outcome: 'hold' });
    const holding = await client.createPayment(held);
    expect(await client.cancel(holding.paymentId)).toMatchObject({ status: 'cancelled' });
    expect(await client.cancel(holding.paymentId)).toMatchObject({ status: 'cancelled' });
    expect(sandbox.controls.charges(held.merchantReference)).toBe(0);
    expect(sandbox.controls.events({ merchantReference: held.merchantReference }).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.canceled',
    ]);
    await expect(client.cancel('pi_doesnotexist')).rejects.toMatchObject({ code: 'SANDBOX_API_ERROR', status: 404 });
  });

  it('an unreachable sandbox is a connection error, never a decline', async () => {
    const stopped = await createSandbox();
    const url = stopped.url;
    await stopped.close();
    const orphan = new SandboxClient({ baseUrl: url, timeoutMs: 2_000 });
    try {
      const error = await unknownError(orphan.createPayment(newRequest()));
      expect(error.code).toBe('SANDBOX_CONNECTION_LOST');
    } finally {
      await orphan.close();
    }
  });
});

describe('sandbox: control endpoints and options', () => {
  it('serves the charge ledger and takes plans over HTTP', async () => {
    const req = newRequest();
    const planned = await request(`${sandbox.url}/_sandbox/plans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { orderId: req.orderId }, plan: { outcome: 'decline' } }),
    });
    expect(planned.statusCode).toBe(204);
    await planned.body.dump();
    await expect(client.createPayment(req)).rejects.toBeInstanceOf(ProviderDeclined);
    const bad = await request(`${sandbox.url}/_sandbox/plans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: { outcome: 'maybe' } }),
    });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
    const ledger = await request(
      `${sandbox.url}/_sandbox/charges?merchant_reference=${encodeURIComponent(req.merchantReference)}`,
    );
    expect(await ledger.body.json()).toEqual({
      merchantReference: req.merchantReference,
      chargeCount: 0,
      refundCount: 0,
      paymentIds: sandbox.controls.ledger(req.merchantReference).paymentIds,
    });
  });

  it('rejects bad options and knobs once, with InvalidOption', async () => {
    await expect(createSandbox({ timeScale: 0 })).rejects.toBeInstanceOf(InvalidOption);
    await expect(createSandbox({ webhookUrl: 'http://example.com/hook' })).rejects.toBeInstanceOf(InvalidOption);
    await expect(createSandbox({ signing: { scheme: 'standard-webhooks', secret: 'not base64!' } })).rejects.toThrow(
      InvalidOption,
    );
    expect(() => sandbox.controls.plan({}, { parallelDeliveries: 0 })).toThrow(InvalidOption);
    expect(() => sandbox.controls.plan({}, { responseFault: 'explode' } as unknown as PaymentPlan)).toThrow(
      InvalidOption,
    );
    expect(() => new SandboxClient({ baseUrl: 'ftp://127.0.0.1' })).toThrow(InvalidOption);
    const req = newRequest();
    const badHeader = await rawCreate(bodyOf(req), { 'sandbox-plan': '{"outcome":' });
    expect(badHeader).toMatchObject({ status: 400, json: { error: { type: 'invalid_request_error' } } });
    expect(sandbox.controls.ledger(req.merchantReference).paymentIds).toEqual([]);
  });
});
