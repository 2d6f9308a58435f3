import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.js';
import { type Received, startTarget } from './webhook-target.js';

// The official `stripe` package, unmodified, against `payonce sandbox` started as a child process (bin/payonce.js).
const SECRET = 'whsec_sdkTestCurrentSecret0123456789';
const OLD_SECRET = 'whsec_sdkTestPreviousSecret987654321';

let sandbox: SandboxProcess;
let target: Awaited<ReturnType<typeof startTarget>>;
let answerWith: (received: Received, n: number) => number = () => 200;
let stripe: Stripe;
let dir: string;

beforeAll(async () => {
  target = await startTarget((received, n) => ({ status: answerWith(received, n) }));
  dir = await mkdtemp(join(tmpdir(), 'payonce-sdk-'));
  const faults = join(dir, 'faults.json');
  // A --faults file: the first retrieve of a refund answers 503 before commit (the SDK retries it).
  await writeFile(
    faults,
    JSON.stringify({
      seed: 7,
      rules: [{ method: 'GET', path: '/v1/refunds/*', fault: '503-before-commit', count: 1 }],
    }),
  );
  sandbox = await startSandboxProcess([
    '--faults',
    faults,
    '--webhook-url',
    target.url,
    '--webhook-secret',
    SECRET,
    '--webhook-secret',
    OLD_SECRET,
    '--time-scale',
    '0.0001',
    '--delivery-timeout-ms',
    '3000',
  ]);
  stripe = new Stripe('sk_test_payonce_sdk', { host: '127.0.0.1', port: sandbox.port, protocol: 'http' });
}, 30_000);
afterAll(async () => {
  await sandbox?.stop();
  await target?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const order = () => `order-${randomUUID().slice(0, 8)}`;

async function control(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.url}/_sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

interface Ledger {
  payments: { id: string; orderId: string | null; status: string }[];
  charges: { id: string; paymentIntentId: string; status: string }[];
  deliveries: { sourceEventId: string; eventType: string; paymentId: string; kind: string; status: number | null }[];
  faults: { fault: string; phase: string; requestId: string | null; eventId: string | null; source: string }[];
  requests: { requestId: string; idempotencyKey: string | null; status: number | null; replayed: boolean }[];
}
const ledger = async () => (await control('ledger')) as unknown as Ledger;

async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Stripe.errors.StripeError);
  return error as Stripe.errors.StripeError;
}

describe('official stripe SDK: PaymentIntents', () => {
  it('create → update → confirm (test card) → succeeded with a charge; retrieve agrees', async () => {
    const created = await stripe.paymentIntents.create({
      amount: 1999,
      currency: 'eur',
      metadata: { order_id: order() },
    });
    expect(created).toMatchObject({ object: 'payment_intent', status: 'requires_payment_method', amount: 1999 });
    expect(created.lastResponse.requestId).toMatch(/^req_/);
    const updated = await stripe.paymentIntents.update(created.id, {
      amount: 2500,
      payment_method: 'pm_card_visa',
      metadata: { note: 'changed' },
    });
    expect(updated).toMatchObject({ status: 'requires_confirmation', amount: 2500, payment_method: 'pm_card_visa' });
    expect(updated.metadata).toMatchObject({ note: 'changed', order_id: created.metadata.order_id });
    const confirmed = await stripe.paymentIntents.confirm(created.id, { expand: ['latest_charge'] });
    expect(confirmed).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    const charge = confirmed.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({
      object: 'charge',
      amount: 2500,
      captured: true,
      paid: true,
      payment_intent: created.id,
    });
    const again = await stripe.paymentIntents.retrieve(created.id);
    expect(again.latest_charge).toBe(charge.id);
    expect(again.status).toBe('succeeded');
  });

  it('manual capture: requires_capture, then a partial capture succeeds; cancel and its refusal', async () => {
    const held = await stripe.paymentIntents.create({
      amount: 5000,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_mastercard',
      confirm: true,
    });
    expect(held).toMatchObject({ status: 'requires_capture', amount_capturable: 5000, amount_received: 0 });
    const captured = await stripe.paymentIntents.capture(held.id, { amount_to_capture: 4000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 4000, amount_capturable: 0 });
    expect(await stripe.charges.retrieve(String(captured.latest_charge))).toMatchObject({ amount_captured: 4000 });

    const open = await stripe.paymentIntents.create({ amount: 700, currency: 'gbp' });
    const canceled = await stripe.paymentIntents.cancel(open.id, { cancellation_reason: 'abandoned' });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    const refused = await rejection(stripe.paymentIntents.cancel(open.id));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });

  it('list with limit / starting_after / ending_before / created, and search by metadata', async () => {
    const tag = order();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await stripe.paymentIntents.create({ amount: 100 + i, currency: 'usd', metadata: { order_id: tag } })).id,
      );
    }
    const first = await stripe.paymentIntents.list({ limit: 2 });
    expect(first.data.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const next = await stripe.paymentIntents.list({ limit: 2, starting_after: ids[1] });
    expect(next.data[0]?.id).toBe(ids[0]);
    const back = await stripe.paymentIntents.list({ limit: 1, ending_before: ids[0] });
    expect(back.data.map((p) => p.id)).toEqual([ids[1]]);
    const recent = await stripe.paymentIntents.list({
      created: { gte: Math.floor(Date.now() / 1000) - 60 },
      limit: 100,
    });
    expect(recent.data.map((p) => p.id)).toEqual(expect.arrayContaining(ids));
    const found = await stripe.paymentIntents.search({ query: `metadata['order_id']:'${tag}'` });
    expect(found.object).toBe('search_result');
    expect(found.data.map((p) => p.id).sort()).toEqual([...ids].sort());
  });
});

describe('official stripe SDK: refunds, charges, events', () => {
  it('partial then full refund; refunds and charges list and retrieve; over-refund refused', async () => {
    const paid = await stripe.paymentIntents.create({
      amount: 3000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    const part = await stripe.refunds.create({
      payment_intent: paid.id,
      amount: 1000,
      reason: 'requested_by_customer',
    });
    expect(part).toMatchObject({ object: 'refund', amount: 1000, status: 'succeeded', payment_intent: paid.id });
    const rest = await stripe.refunds.create({ payment_intent: paid.id });
    expect(rest.amount).toBe(2000);
    const retrieved = await stripe.refunds.retrieve(part.id);
    expect(retrieved.amount).toBe(1000);
    const fromFile = (await ledger()).faults.filter((f) => f.fault === '503-before-commit' && f.source === 'rule:1');
    expect(fromFile).toHaveLength(1);
    expect(fromFile[0]?.requestId).not.toBe(retrieved.lastResponse.requestId);
    const listed = await stripe.refunds.list({ payment_intent: paid.id });
    expect(listed.data.map((r) => r.id)).toEqual([rest.id, part.id]);
    const charge = await stripe.charges.retrieve(String(paid.latest_charge));
    expect(charge).toMatchObject({ amount_refunded: 3000, refunded: true });
    const charges = await stripe.charges.list({ payment_intent: paid.id });
    expect(charges.data.map((c) => c.id)).toEqual([charge.id]);
    const over = await rejection(stripe.refunds.create({ payment_intent: paid.id, amount: 1 }));
    expect(over).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(over.code).toBe('charge_already_refunded');
  });

  it('events list (type, created) and retrieve; data.object equals the retrieve at that moment', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const paid = await stripe.paymentIntents.create({
      amount: 1200,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    const succeeded = await stripe.events.list({
      type: 'payment_intent.succeeded',
      created: { gte: since },
      limit: 100,
    });
    const event = succeeded.data.find((e) => (e.data.object as Stripe.PaymentIntent).id === paid.id);
    expect(event).toBeDefined();
    expect(event?.data.object).toEqual(
      await stripe.paymentIntents.retrieve(paid.id).then(({ lastResponse, ...rest }) => rest),
    );
    const one = await stripe.events.retrieve(event!.id);
    expect(one).toMatchObject({
      id: event!.id,
      type: 'payment_intent.succeeded',
      request: { id: paid.lastResponse.requestId },
    });
    const types = (await stripe.events.list({ created: { gte: since }, limit: 100 })).data
      .filter(
        (e) =>
          (e.data.object as { id?: string; payment_intent?: string }).id === paid.id ||
          (e.data.object as { payment_intent?: string }).payment_intent === paid.id,
      )
      .map((e) => e.type);
    expect(types.sort()).toEqual(['charge.succeeded', 'payment_intent.created', 'payment_intent.succeeded']);
  });
});

describe('official stripe SDK: idempotency and errors', () => {
  it('same key → same object and Idempotent-Replayed; other parameters → StripeIdempotencyError', async () => {
    const key = `sdk-${randomUUID()}`;
    const params = { amount: 4200, currency: 'usd', payment_method: 'pm_card_visa', confirm: true } as const;
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(second.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    const changed = await rejection(stripe.paymentIntents.create({ ...params, amount: 4300 }, { idempotencyKey: key }));
    expect(changed).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(changed.statusCode).toBe(400);
  });

  it('same key while the first runs → 409 idempotency_error (the SDK retries it); keys expire after 24 h of sandbox clock', async () => {
    const key = `busy-${randomUUID()}`;
    const params = { amount: 1700, currency: 'usd', payment_method: 'pm_card_visa', confirm: true } as const;
    const hanging = stripe.paymentIntents
      .create(params, {
        idempotencyKey: key,
        maxNetworkRetries: 0,
        headers: { 'Payonce-Fault': 'timeout-before-commit=1500' },
      })
      .catch((e: unknown) => e);
    // Wait until the sandbox holds the key in flight (the hung request is in its ledger), not a fixed time.
    await expect
      .poll(async () => (await ledger()).requests.some((r) => r.idempotencyKey === key), { timeout: 5_000 })
      .toBe(true);
    const busy = await rejection(stripe.paymentIntents.create(params, { idempotencyKey: key, maxNetworkRetries: 0 }));
    expect(busy).toMatchObject({ statusCode: 409, type: 'StripeAPIError', rawType: 'idempotency_error' });
    // The SDK retries a 409 with back-off: once the hung request let go of the key, the retry runs it.
    const retried = await stripe.paymentIntents.create(params, { idempotencyKey: key, maxNetworkRetries: 5 });
    expect(retried.status).toBe('succeeded');
    expect(retried.lastResponse.apiVersion).toBeDefined();
    // The hung request's connection was closed: the SDK retries a reset once even with maxNetworkRetries 0. That
    // retry carries the same key and the same fault header: it gets the stored answer when the key is stored by
    // then, or is reset again (a connection error). Either way it never yields another PaymentIntent.
    const hung = await hanging;
    if (hung instanceof Stripe.errors.StripeConnectionError) expect(hung.detail).toMatchObject({ code: 'ECONNRESET' });
    else expect(hung).toMatchObject({ id: retried.id });
    await control('clock', { advanceMs: 24 * 3_600_000 + 1_000 });
    const fresh = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(fresh.id).not.toBe(retried.id);
    expect(fresh.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  it('decline card → StripeCardError; bad parameters and unknown ids → StripeInvalidRequestError', async () => {
    const declined = await rejection(
      stripe.paymentIntents.create({
        amount: 999,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      }),
    );
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
    const byNumber = await rejection(
      stripe.paymentIntents.create({
        amount: 999,
        currency: 'usd',
        confirm: true,
        payment_method_data: {
          type: 'card',
          card: { number: '4000000000009995', exp_month: 12, exp_year: 2040, cvc: '123' },
        } as never,
      }),
    );
    expect(byNumber).toMatchObject({ code: 'card_declined', decline_code: 'insufficient_funds' });
    const intent = (declined.raw as { payment_intent?: { id: string } }).payment_intent;
    expect((await stripe.paymentIntents.retrieve(intent!.id)).status).toBe('requires_payment_method');

    for (const bad of [
      { amount: 10, currency: 'usd' },
      { amount: 1000, currency: 'dollars' },
      { amount: 1005, currency: 'kwd' },
      { amount: 1000, currency: 'usd', color: 'blue' },
    ]) {
      const error = await rejection(stripe.paymentIntents.create(bad as Stripe.PaymentIntentCreateParams));
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error.param).toBeDefined();
    }
    const missing = await rejection(stripe.paymentIntents.retrieve('pi_doesnotexist'));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const yen = await stripe.paymentIntents.create({ amount: 500, currency: 'jpy' });
    expect(yen.amount).toBe(500);
    const live = new Stripe('sk_live_notatestkey', { host: '127.0.0.1', port: sandbox.port, protocol: 'http' });
    await expect(live.paymentIntents.list()).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    const anonymous = await fetch(`${sandbox.url}/v1/payment_intents`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('drop-after-commit on POST /v1/payment_intents: the SDK retry (maxNetworkRetries 2) leaves one payment, one charge', async () => {
    const orderId = order();
    await control('fault-rules', { method: 'POST', path: '/v1/payment_intents', fault: 'drop-after-commit', count: 1 });
    const retrying = new Stripe('sk_test_payonce_sdk', {
      host: '127.0.0.1',
      port: sandbox.port,
      protocol: 'http',
      maxNetworkRetries: 2,
    });
    const paid = await retrying.paymentIntents.create({
      amount: 2600,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
      metadata: { order_id: orderId },
    });
    expect(paid.status).toBe('succeeded');
    expect(paid.lastResponse.headers['idempotent-replayed']).toBe('true');
    const state = await ledger();
    const payments = state.payments.filter((p) => p.orderId === orderId);
    expect(payments.map((p) => p.id)).toEqual([paid.id]);
    expect(state.charges.filter((c) => c.paymentIntentId === paid.id && c.status === 'succeeded')).toHaveLength(1);
    const tries = state.requests.filter((r) => r.idempotencyKey === paid.lastResponse.idempotencyKey);
    expect(tries.map((r) => [r.status, r.replayed])).toEqual([
      [null, false],
      [200, true],
    ]);
    expect(state.faults.filter((f) => f.requestId === tries[0]?.requestId).map((f) => f.fault)).toEqual([
      'drop-after-commit',
    ]);
  });

  // Issue #34 item 27: the SDK resends Payonce-Fault on every retry; a header fault strikes the key's first request only.
  it('Payonce-Fault drop-after-commit strikes once per idempotency key: the SDK retry gets the stored answer', async () => {
    const orderId = order();
    const retrying = new Stripe('sk_test_payonce_sdk', {
      host: '127.0.0.1',
      port: sandbox.port,
      protocol: 'http',
      maxNetworkRetries: 2,
    });
    const paid = await retrying.paymentIntents.create(
      { amount: 2700, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, metadata: { order_id: orderId } },
      { headers: { 'Payonce-Fault': 'drop-after-commit' } },
    );
    expect(paid.status).toBe('succeeded');
    expect(paid.lastResponse.headers['idempotent-replayed']).toBe('true');
    const state = await ledger();
    expect(state.payments.filter((p) => p.orderId === orderId).map((p) => p.id)).toEqual([paid.id]);
    const tries = state.requests.filter((r) => r.idempotencyKey === paid.lastResponse.idempotencyKey);
    expect(tries.map((r) => [r.status, r.replayed])).toEqual([
      [null, false],
      [200, true],
    ]);
    expect(state.faults.filter((f) => tries.some((t) => t.requestId === f.requestId)).map((f) => f.fault)).toEqual([
      'drop-after-commit',
    ]);
  });

  it('Payonce-Fault with repeat strikes every retry of the key: the SDK gives up after its retries', async () => {
    const key = `repeat-${randomUUID()}`;
    const retrying = new Stripe('sk_test_payonce_sdk', {
      host: '127.0.0.1',
      port: sandbox.port,
      protocol: 'http',
      maxNetworkRetries: 1,
    });
    const error = await rejection(
      retrying.paymentIntents.create(
        { amount: 2800, currency: 'usd', payment_method: 'pm_card_visa', confirm: true },
        { idempotencyKey: key, headers: { 'Payonce-Fault': 'drop-after-commit, repeat' } },
      ),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const tries = (await ledger()).requests.filter((r) => r.idempotencyKey === key);
    expect(tries.map((r) => [r.status, r.replayed])).toEqual([
      [null, false],
      [null, true],
    ]);
  });

  it('API faults by header: 500/503 before and after commit, 429 with Retry-After, delay, timeout', async () => {
    const once = { maxNetworkRetries: 0 };
    const params = { amount: 1500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true } as const;
    const fault = (name: string) => ({ ...once, headers: { 'Payonce-Fault': name } });
    const limited = await rejection(stripe.paymentIntents.create(params, fault('rate-limit=2')));
    expect(limited).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(limited.headers?.['retry-after']).toBe('2');
    const before = await rejection(stripe.paymentIntents.create(params, fault('503-before-commit')));
    expect(before).toBeInstanceOf(Stripe.errors.StripeAPIError);
    const key = `after-${randomUUID()}`;
    const after = await rejection(
      stripe.paymentIntents.create(params, { ...fault('500-after-commit'), idempotencyKey: key }),
    );
    expect(after.statusCode).toBe(500);
    expect(after.headers?.['stripe-should-retry']).toBe('true');
    const stored = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(stored.lastResponse.headers['idempotent-replayed']).toBe('true');
    const started = Date.now();
    await stripe.paymentIntents.list({ limit: 1 }, { headers: { 'Payonce-Fault': 'delay=300' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const timedOut = await rejection(
      stripe.paymentIntents.create(params, { ...fault('timeout-before-commit=2000'), timeout: 300 }),
    );
    expect(timedOut).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const faults = (await ledger()).faults.map((f) => f.fault);
    expect(faults).toEqual(
      expect.arrayContaining(['rate-limit', '503-before-commit', '500-after-commit', 'delay', 'hang-before-commit']),
    );
  });
});

describe('official stripe SDK: webhooks', () => {
  const verifier = stripeScheme({ secrets: SECRET });
  const oldVerifier = stripeScheme({ secrets: OLD_SECRET });

  /** Every request the target got for `paymentId` (by the event's object). */
  const receivedFor = (paymentId: string) =>
    target.received.filter((r) => {
      const object = (JSON.parse(r.body) as { data?: { object?: { id?: string; payment_intent?: string } } }).data
        ?.object;
      return object?.id === paymentId || object?.payment_intent === paymentId;
    });

  const verifies = (r: Received) => {
    const header = String(r.headers['stripe-signature']);
    let sdk = true;
    try {
      stripe.webhooks.constructEvent(r.body, header, SECRET);
      stripe.webhooks.constructEvent(r.body, header, OLD_SECRET);
    } catch {
      sdk = false;
    }
    const ours = verifier.verify({ rawBody: r.rawBody, headers: r.headers, nowMs: Date.now() }).ok;
    const ours2 = oldVerifier.verify({ rawBody: r.rawBody, headers: r.headers, nowMs: Date.now() }).ok;
    return sdk && ours && ours2;
  };

  it.each([
    ['webhook-duplicate=2', (kinds: string[]) => kinds.filter((k) => k === 'duplicate').length >= 2],
    ['webhook-parallel=3', (kinds: string[]) => kinds.filter((k) => k === 'parallel-copy').length >= 2],
    ['webhook-reorder', () => true],
    ['webhook-delay=200', () => true],
    ['webhook-drop', (_kinds: string[], statuses: (number | null)[]) => statuses.includes(null)],
    ['webhook-bad-signature', (kinds: string[]) => kinds.includes('forged-signature')],
    ['webhook-before-response', () => true],
  ] as const)('%s: every genuine delivery verifies with constructEvent and stripeScheme', async (fault, check) => {
    const started = Date.now();
    const paid = await stripe.paymentIntents.create(
      { amount: 1800, currency: 'usd', payment_method: 'pm_card_visa', confirm: true },
      { headers: { 'Payonce-Fault': fault } },
    );
    const requestId = paid.lastResponse.requestId;
    if (fault === 'webhook-before-response') {
      expect(receivedFor(paid.id).length).toBeGreaterThanOrEqual(3);
    }
    await control('idle', { timeoutMs: 15_000 });
    const state = await ledger();
    const log = state.deliveries.filter((d) => d.paymentId === paid.id);
    expect(
      check(
        log.map((d) => d.kind) as string[],
        log.map((d) => d.status),
      ),
    ).toBe(true);
    const genuine = log.filter((d) => d.kind !== 'forged-signature');
    expect(genuine.filter((d) => d.status === 200).map((d) => d.eventType)).toEqual(
      expect.arrayContaining(['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']),
    );
    const got = receivedFor(paid.id);
    const forged = got.filter((r) => !verifies(r));
    expect(forged).toHaveLength(fault === 'webhook-bad-signature' ? 3 : 0);
    expect(got.length - forged.length).toBe(genuine.filter((d) => d.status !== null).length);
    if (fault === 'webhook-delay=200') expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    if (fault === 'webhook-reorder') {
      const types = got.filter((r) => verifies(r)).map((r) => JSON.parse(r.body).type);
      expect(types.slice(0, 3)).toEqual(['charge.succeeded', 'payment_intent.succeeded', 'payment_intent.created']);
    }
    const recorded = state.faults.filter((f) => f.requestId === requestId && f.phase === 'webhook');
    expect(recorded.map((f) => f.fault)).toContain(fault.split('=')[0]);
  });

  it('a non-2xx answer is retried on the schedule; the retry verifies; registered endpoints over the API', async () => {
    const failures = new Set<string>();
    answerWith = (r) => {
      const id = JSON.parse(r.body).id as string;
      if (failures.has(id)) return 200;
      failures.add(id);
      return 500;
    };
    try {
      const paid = await stripe.paymentIntents.create({
        amount: 2100,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        confirm: true,
      });
      await control('idle', { timeoutMs: 15_000 });
      const log = (await ledger()).deliveries.filter((d) => d.paymentId === paid.id && d.kind === 'attempt');
      expect(log.filter((d) => d.eventType === 'payment_intent.succeeded').map((d) => d.status)).toEqual([500, 200]);
      expect(receivedFor(paid.id).every(verifies)).toBe(true);
    } finally {
      answerWith = () => 200;
    }
    const other = await startTarget();
    try {
      const endpoint = await stripe.webhookEndpoints.create({ url: other.url, enabled_events: ['charge.refunded'] });
      expect(endpoint.secret).toMatch(/^whsec_/);
      const paid = await stripe.paymentIntents.create({
        amount: 2200,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        confirm: true,
      });
      await stripe.refunds.create({ payment_intent: paid.id, amount: 200 });
      await control('idle', { timeoutMs: 15_000 });
      expect(other.received.map((r) => JSON.parse(r.body).type)).toEqual(['charge.refunded']);
      const event = stripe.webhooks.constructEvent(
        other.received[0]!.body,
        String(other.received[0]!.headers['stripe-signature']),
        endpoint.secret!,
      );
      expect(event.data.object).toMatchObject({ object: 'charge', amount_refunded: 200 });
      expect((await stripe.webhookEndpoints.list()).data.map((e) => e.id)).toContain(endpoint.id);
      expect(await stripe.webhookEndpoints.del(endpoint.id)).toMatchObject({ deleted: true });
    } finally {
      await other.close();
    }
  });
});

describe('payonce sandbox: bad input is a Stripe-shaped 400, never a crash', () => {
  const post = (body: string, type = 'application/x-www-form-urlencoded') =>
    fetch(`${sandbox.url}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_x', 'content-type': type },
      body,
    });

  it.each([
    ['deep nesting', `metadata${'[a]'.repeat(40)}=1`, undefined],
    ['too many parameters', Array.from({ length: 1_500 }, (_, i) => `p${i}=1`).join('&'), undefined],
    ['a huge body', `description=${'x'.repeat(400_000)}`, undefined],
    ['a long array', Array.from({ length: 150 }, (_, i) => `payment_method_types[${i}]=card`).join('&'), undefined],
    ['bad JSON', '{"amount":', 'application/json'],
    ['deep JSON', `${'['.repeat(5_000)}${']'.repeat(5_000)}`, 'application/json'],
  ])('%s', async (_name, body, type) => {
    const response = await post(body, type);
    expect(response.status).toBe(400);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const json = (await response.json()) as { error: { type: string; message: string } };
    expect(json.error.type).toBe('invalid_request_error');
  });

  it('bracket notation by hand (a[]=…, a[b]=…, expand[]) and JSON bodies are both read', async () => {
    const form = await post(
      'amount=2000&currency=usd&confirm=true&payment_method=pm_card_visa&payment_method_types[]=card' +
        '&metadata[order_id]=hand-1&metadata[note]=a%20b&expand[]=latest_charge',
    );
    expect(form.status).toBe(200);
    const intent = (await form.json()) as Stripe.PaymentIntent;
    expect(intent).toMatchObject({ payment_method_types: ['card'], metadata: { order_id: 'hand-1', note: 'a b' } });
    expect(intent.latest_charge).toMatchObject({ object: 'charge', amount: 2000 });
    const json = await post(
      JSON.stringify({ amount: 2100, currency: 'eur', metadata: { order_id: 'json-1' } }),
      'application/json',
    );
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ amount: 2100, status: 'requires_payment_method' });
  });

  it('unknown routes answer 404 in Stripe shape; the sandbox still works afterwards', async () => {
    const response = await fetch(`${sandbox.url}/v1/no_such_thing`, { headers: { authorization: 'Bearer sk_test_x' } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((await stripe.paymentIntents.list({ limit: 1 })).object).toBe('list');
  });
});
