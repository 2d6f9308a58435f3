import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { parseExposition } from '../observe/exposition.js';
import {
  call,
  deliver,
  type Harness,
  orderAndCheckout,
  startHarness,
  stripeIntentEvent,
  until,
  untilFulfilled,
  type ViewBody,
} from './service-harness.js';

/** A random admin token (a fixed placeholder would be refused as predictable). */
const ADMIN = randomBytes(32).toString('base64url');

describe('reference service on SQLite with the sandbox (Stripe signing)', () => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await startHarness({ adminToken: ADMIN });
    url = h.service.url;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function receiptsFor(eventId: string): Promise<number> {
    const db = h.service.context.store.db as unknown as Kysely<ReceiptsDatabase>;
    const rows = await db.selectFrom('payonce_receipts').select('status').where('external_id', '=', eventId).execute();
    return rows.length;
  }

  it('order → checkout → webhook → paid → exactly one fulfilment, with attempts, journal, jobs and deliveries', async () => {
    const { orderId, checkout } = await orderAndCheckout(url);
    expect(checkout.status).toBe(201);
    expect(checkout.body.outcome).toBe('created');
    const attemptId = checkout.body.attempt?.id ?? '';
    expect(attemptId).not.toBe('');
    const view = await untilFulfilled(url, orderId);
    expect(view.order).toMatchObject({ id: orderId, status: 'completed', amountMinor: 1999, currency: 'EUR' });
    expect(view.order.paidAttemptId).toBe(attemptId);
    expect(view.attempts).toHaveLength(1);
    expect(view.attempts[0]).toMatchObject({
      id: attemptId,
      status: 'succeeded',
      idempotencyKey: `payment-attempt:${attemptId}`,
    });
    expect(view.attempts[0]?.providerPaymentId).toMatch(/^pi_/);
    expect(view.paidTransitions).toBe(1);
    expect(view.fulfilments).toHaveLength(1);
    expect(view.fulfilments[0]?.attemptId).toBe(attemptId);
    expect(view.jobs).toEqual([expect.objectContaining({ topic: 'order.fulfil', status: 'done', attempts: 1 })]);
    expect(view.fulfilments[0]?.jobId).toBe(view.jobs[0]?.id);
    expect(view.journal.some((e) => e.decision === 'applied' && e.status === 'succeeded')).toBe(true);
    expect(view.deliveries.length).toBeGreaterThanOrEqual(1);
    expect(view.deliveries[0]).toMatchObject({ provider: 'stripe', decision: 'new', outcome: 'completed' });
    expect(h.sandbox.controls.charges(attemptId)).toBe(1);
  });

  it('a second checkout of a paid order answers already-paid, names the attempt that paid it, and creates nothing', async () => {
    const { orderId, checkout } = await orderAndCheckout(url);
    const attemptId = checkout.body.attempt?.id;
    expect(attemptId).toEqual(expect.any(String));
    await untilFulfilled(url, orderId);
    const again = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `again-${orderId}` });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ outcome: 'already-paid', attempt: { id: attemptId, status: 'succeeded' } });
    const view = await call<ViewBody>(url, 'GET', `/orders/${orderId}`);
    expect(view.body.attempts).toHaveLength(1);
    expect(view.body.fulfilments).toHaveLength(1);
  });

  it('checkout needs an Idempotency-Key (400), replays a retry byte for byte, and refuses the key with another body (422)', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 500, currency: 'USD' },
    });
    const orderId = created.body.order.id;
    const missing = await call(url, 'POST', `/orders/${orderId}/checkout`);
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_MISSING');
    const first = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: 'key-replay-1' });
    expect(first.status).toBe(201);
    const retry = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: 'key-replay-1' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    const other = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: 'key-replay-1', body: { x: 1 } });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('PAYLOAD_MISMATCH');
    const second = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: 'key-replay-2' });
    expect([200, 201]).toContain(second.status);
    if (second.status === 200) expect(['existing', 'already-paid']).toContain(second.body.outcome);
    const view = await untilFulfilled(url, orderId);
    expect(view.attempts).toHaveLength(1);
    expect(view.fulfilments).toHaveLength(1);
  });

  it('POST /orders replays with a key, refuses bad money (400) and a missing customer (401)', async () => {
    const a = await call(url, 'POST', '/orders', { key: 'order-key-1', body: { amountMinor: 700, currency: 'EUR' } });
    const b = await call(url, 'POST', '/orders', { key: 'order-key-1', body: { amountMinor: 700, currency: 'EUR' } });
    expect(a.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.text).toBe(a.text);
    const bad = await call(url, 'POST', '/orders', { body: { amountMinor: 10.5, currency: 'EUR' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_MONEY');
    const notJson = await call(url, 'POST', '/orders', { body: '{"amountMinor":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe('INVALID_REQUEST_BODY');
    const anonymous = await call(url, 'POST', '/orders', {
      customer: null,
      body: { amountMinor: 700, currency: 'EUR' },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('CUSTOMER_ID_MISSING');
    expect((await call(url, 'GET', '/orders/whatever', { customer: null })).status).toBe(401);
  });

  it('unknown orders and other customers’ orders are 404, for reading and for checkout', async () => {
    const { orderId } = await orderAndCheckout(url);
    const unknown = await call(url, 'GET', '/orders/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('ORDER_NOT_FOUND');
    expect((await call(url, 'GET', `/orders/${orderId}`, { customer: 'customer-b' })).status).toBe(404);
    const foreign = await call(url, 'POST', `/orders/${orderId}/checkout`, { customer: 'customer-b', key: 'k-b' });
    expect(foreign.status).toBe(404);
    expect((await call(url, 'POST', '/orders/not-an-order/checkout', { key: 'k-c' })).status).toBe(404);
  });

  it('duplicate and parallel deliveries of one event take effect once', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 1234, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { duplicateDeliveries: 3, parallelDeliveries: 3, twoEventIds: true });
    const checkout = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `dup-${orderId}` });
    expect(checkout.status).toBe(201);
    await untilFulfilled(url, orderId);
    await h.sandbox.controls.idle(10_000);
    const view = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(view.paidTransitions).toBe(1);
    expect(view.fulfilments).toHaveLength(1);
    expect(view.deliveries.length).toBeGreaterThanOrEqual(8);
    expect(view.deliveries.filter((d) => d.decision === 'new')).toHaveLength(2);
    expect(view.deliveries.some((d) => d.decision === 'duplicate')).toBe(true);
  });

  it('a webhook that arrives before the checkout answer is applied once; the late answer changes nothing', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 1500, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { webhookBeforeResponse: true });
    const checkout = await call<{ attempt: { id: string; status: string } }>(
      url,
      'POST',
      `/orders/${orderId}/checkout`,
      {
        key: `early-${orderId}`,
      },
    );
    expect(checkout.status).toBe(201);
    expect(checkout.body.attempt.status).toBe('succeeded');
    const view = await untilFulfilled(url, orderId);
    expect(view.paidTransitions).toBe(1);
    expect(view.fulfilments).toHaveLength(1);
    const answer = view.journal.find((e) => e.eventType === 'checkout.response');
    expect(answer?.decision).toBe('unchanged');
  });

  it('a delivery with a bad signature is refused (400, as Stripe answers it) with no receipt and no effect', async () => {
    const { orderId, checkout } = await orderAndCheckout(url);
    const attemptId = checkout.body.attempt?.id ?? '';
    await untilFulfilled(url, orderId);
    const eventId = `evt_forged_${orderId.slice(0, 8)}`;
    const body = stripeIntentEvent({
      eventId,
      type: 'payment_intent.succeeded',
      paymentId: 'pi_forged',
      merchantReference: attemptId,
      orderId,
      amountMinor: 1999,
      currency: 'EUR',
    });
    const forged = signedHeaders(
      { scheme: 'stripe', secret: 'whsec_not_the_endpoint_secret' },
      eventId,
      body,
      Math.floor(Date.now() / 1000),
    );
    const answer = await deliver(url, 'stripe', body, forged);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('WEBHOOK_SIGNATURE_INVALID');
    expect(await receiptsFor(eventId)).toBe(0);
    const unsigned = await deliver(url, 'stripe', body, { 'content-type': 'application/json' });
    expect(unsigned.status).toBeGreaterThanOrEqual(400);
    expect(unsigned.status).toBeLessThan(500);
    expect(await receiptsFor(eventId)).toBe(0);
    const view = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(view.fulfilments).toHaveLength(1);
    expect(view.journal.some((e) => e.eventId === eventId)).toBe(false);
  });

  it('an authentic event with a foreign amount is declined (200), journaled rejected, and changes nothing', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 4200, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { tamperedAmount: 'resigned' });
    await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `tamper-${orderId}` });
    const view = await untilFulfilled(url, orderId);
    await h.sandbox.controls.idle(10_000);
    const after = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(after.paidTransitions).toBe(1);
    expect(after.fulfilments).toHaveLength(1);
    const rejected = after.journal.filter((e) => e.decision === 'rejected');
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    expect(rejected[0]?.reason).toContain('amount');
    expect(after.deliveries.some((d) => d.outcome === 'declined')).toBe(true);
    expect(view.order.status).toBe('completed');
  });

  it('an unknown event type is acknowledged and journaled with no business action', async () => {
    const eventId = 'evt_unknown_type_1';
    const body = JSON.stringify({
      id: eventId,
      object: 'event',
      created: Math.floor(Date.now() / 1000),
      type: 'customer.created',
      data: { object: { id: 'cus_1', object: 'customer' } },
    });
    const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, Math.floor(Date.now() / 1000));
    const answer = await deliver(url, 'stripe', body, headers);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      received: true,
      ignored: true,
      reason: 'no handler for this event type',
    });
    expect(await receiptsFor(eventId)).toBe(1);
  });

  it('a refund after fulfilment refunds the order and records one refund', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 900, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { refundAfterSettle: true, duplicateDeliveries: 1 });
    await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `refund-${orderId}` });
    const view = await until(
      async () => {
        const v = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
        const refundDone = v.jobs.some((j) => j.topic === 'order.refunded' && j.status === 'done');
        return v.order.status === 'refunded' && refundDone ? v : null;
      },
      10_000,
      'the refund',
    );
    expect(view.paidTransitions).toBe(1);
    expect(view.refunds).toHaveLength(1);
    expect(view.fulfilments.length).toBeLessThanOrEqual(1);
    const again = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `refund-again-${orderId}` });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ORDER_NOT_PAYABLE');
  });

  it('a refund delivered before the success it refunds is parked (200) and applied with the success, once', async () => {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 950, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { refundAfterSettle: true, reorder: true });
    await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `reorder-${orderId}` });
    const view = await until(
      async () => {
        const v = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
        const refundDone = v.jobs.some((j) => j.topic === 'order.refunded' && j.status === 'done');
        return v.order.status === 'refunded' && refundDone ? v : null;
      },
      10_000,
      'the early refund to be applied after the success',
    );
    expect(view.paidTransitions).toBe(1);
    expect(view.refunds).toHaveLength(1);
    // Refunded in the transaction that made it paid: the fulfilment job finds it refunded and ships nothing.
    expect(view.fulfilments).toHaveLength(0);
    const refunds = view.deliveries.filter(
      (d) => d.eventId === view.journal.find((e) => e.status === 'refunded')?.eventId,
    );
    expect(refunds).toEqual([expect.objectContaining({ decision: 'new', outcome: 'completed' })]);
    expect(view.journal.filter((e) => e.status === 'refunded').map((e) => e.decision)).toEqual(['applied']);
    expect(view.journal.filter((e) => e.status === 'succeeded').map((e) => e.decision)).toContain('applied');
  });

  it('healthz answers ok with the pid; metrics parse and count checkouts and fulfilments', async () => {
    const health = await call(url, 'GET', '/healthz', { customer: null });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', pid: process.pid, database: 'sqlite', receipts: 'sql' });
    expect(typeof health.body.startedAtMs).toBe('number');
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const exposition = parseExposition(await response.text());
    const sum = (name: string, labels: Record<string, string> = {}) =>
      exposition.samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((total, s) => total + s.value, 0);
    expect(sum('payonce_checkouts_total', { outcome: 'created' })).toBeGreaterThanOrEqual(1);
    expect(sum('payonce_fulfilments_total', { kind: 'fulfil', outcome: 'performed' })).toBeGreaterThanOrEqual(1);
    expect(sum('payonce_webhook_deliveries_total', { provider: 'stripe', decision: 'new' })).toBeGreaterThanOrEqual(1);
    expect(sum('payonce_webhook_deliveries_total', { decision: 'rejected' })).toBeGreaterThanOrEqual(1);
    expect(exposition.types.get('payonce_outbox_lag_seconds')).toBe('gauge');
    expect(exposition.types.get('payonce_payment_attempts_unknown')).toBe('gauge');
    expect(sum('payonce_outbox_jobs', { status: 'done' })).toBeGreaterThanOrEqual(1);
    expect(sum('payonce_payment_alerts_total')).toBeGreaterThanOrEqual(1);
  });

  it('has no unjournaled POST /admin/jobs/:id/rerun: 404; the console rerun of a done job is refused and journaled', async () => {
    const { orderId } = await orderAndCheckout(url);
    const view = await untilFulfilled(url, orderId);
    const jobId = view.jobs[0]?.id ?? '';
    const auth = { authorization: `Bearer ${ADMIN}` };
    const old = await call(url, 'POST', `/admin/jobs/${jobId}/rerun`, { customer: null, headers: auth });
    expect(old.status).toBe(404);
    const rerun = await call<{ code: string }>(url, 'POST', `/admin/api/jobs/${jobId}/rerun`, {
      customer: null,
      headers: { ...auth, 'idempotency-key': `rerun-${jobId}`, 'x-operator': 'ops-placeholder' },
      body: {},
    });
    expect(rerun.status).toBe(409);
    expect(rerun.body.code).toBe('JOB_NOT_DEAD');
    const journal = await call<{ items: { action: string; target: string; outcome: string; actor: string }[] }>(
      url,
      'GET',
      '/admin/api/actions?action=rerun-job',
      { customer: null, headers: auth },
    );
    expect(journal.body.items).toContainEqual(
      expect.objectContaining({ target: `job:${jobId}`, outcome: 'refused', actor: 'ops-placeholder' }),
    );
    const after = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(after.jobs[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(after.fulfilments).toHaveLength(1);
  });
});

describe('reference service on a store its owner closes', () => {
  it('answers /healthz 503 when the database does not answer, and leaves the store to its owner', async () => {
    const ns = await createSqliteNamespace();
    const store = await SqliteStore.open<unknown>(ns.path);
    const h = await startHarness({ store, databaseUrl: ns.path });
    try {
      expect((await call(h.service.url, 'GET', '/healthz', { customer: null })).status).toBe(200);
      await store.close();
      const down = await call(h.service.url, 'GET', '/healthz', { customer: null });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'unavailable', pid: process.pid, database: 'sqlite' });
    } finally {
      await h.close();
      await ns.drop();
    }
  });
});

describe('reference service without an admin token', () => {
  it('answers 404 on admin routes and on webhook endpoints without a secret', async () => {
    const h = await startHarness();
    try {
      const rerun = await call(h.service.url, 'POST', '/admin/jobs/x/rerun', {
        customer: null,
        headers: { authorization: 'Bearer anything' },
      });
      expect(rerun.status).toBe(404);
      expect((await deliver(h.service.url, 'standard-webhooks', '{}', {})).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describe('reference service with a pinned clock', () => {
  it('verifies signatures against the pinned time and parks an event whose attempt is unknown', async () => {
    const pinnedMs = Date.parse('2024-06-20T12:00:00Z');
    const h = await startHarness({ clock: { now: () => pinnedMs } });
    try {
      const eventId = 'evt_pinned_clock_1';
      const body = stripeIntentEvent({
        eventId,
        type: 'payment_intent.succeeded',
        paymentId: 'pi_pinned',
        merchantReference: 'attempt-that-does-not-exist',
        amountMinor: 100,
        currency: 'EUR',
      });
      const signing = h.sandbox.controls.signing();
      const atPinned = await deliver(
        h.service.url,
        'stripe',
        body,
        signedHeaders(signing, eventId, body, pinnedMs / 1000),
      );
      expect(atPinned.status).toBe(200);
      expect(JSON.parse(atPinned.text)).toEqual({ received: true, decision: 'parked' });
      const nowBody = body.replace(eventId, 'evt_pinned_clock_2');
      const now = Math.floor(Date.now() / 1000);
      const atRealNow = await deliver(
        h.service.url,
        'stripe',
        nowBody,
        signedHeaders(signing, 'evt_pinned_clock_2', nowBody, now),
      );
      expect(atRealNow.status).toBe(400);
      const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
      expect(health.body.startedAtMs).toBe(pinnedMs);
    } finally {
      await h.close();
    }
  });
});

describe('reference service with an injected intake guard', () => {
  it('reports receipts "custom" in /healthz and keeps the webhook receipts in that guard’s store', async () => {
    const memory = new MemoryStore();
    const h = await startHarness({ overrides: { intakeGuard: new IdempotencyGuard(memory) } });
    try {
      const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', database: 'sqlite', receipts: 'custom' });
      const { orderId } = await orderAndCheckout(h.service.url, 1999, 'EUR', 'customer-custom-guard');
      await untilFulfilled(h.service.url, orderId, 'customer-custom-guard');
      const db = h.service.context.store.db as unknown as Kysely<ReceiptsDatabase>;
      const sqlWebhookReceipts = await db
        .selectFrom('payonce_receipts')
        .select('provider')
        .where('provider', '=', 'stripe')
        .execute();
      expect(sqlWebhookReceipts).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('reference service with a configured webhook tolerance', () => {
  it.each(['stripe', 'standard-webhooks'] as const)(
    '%s: a signature 15 s old is refused 400 with 10 s, accepted with the default 300 s',
    async (scheme) => {
      const pinnedMs = Date.parse('2024-06-20T12:00:00Z');
      const clock = { now: () => pinnedMs };
      const strict = await startHarness({ scheme, clock, webhookToleranceSec: 10 });
      const lenient = await startHarness({ scheme, clock });
      try {
        expect(strict.service.context.config.webhookToleranceSec).toBe(10);
        expect(lenient.service.context.config.webhookToleranceSec).toBe(300);
        for (const [h, expected] of [
          [strict, 400],
          [lenient, 200],
        ] as const) {
          const eventId = `evt_tolerance_${expected}`;
          const body =
            scheme === 'stripe'
              ? stripeIntentEvent({
                  eventId,
                  type: 'payment_intent.succeeded',
                  paymentId: 'pi_tolerance',
                  merchantReference: 'attempt-that-does-not-exist',
                  amountMinor: 100,
                  currency: 'EUR',
                })
              : JSON.stringify({
                  type: 'payment_intent.succeeded',
                  timestamp: new Date(pinnedMs).toISOString(),
                  data: {
                    id: 'pi_tolerance',
                    object: 'payment_intent',
                    amount: 100,
                    currency: 'eur',
                    metadata: { merchant_reference: 'attempt-that-does-not-exist' },
                  },
                });
          const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, pinnedMs / 1000 - 15);
          const answer = await deliver(h.service.url, scheme, body, headers);
          expect(answer.status, answer.text).toBe(expected);
          const inTime = signedHeaders(h.sandbox.controls.signing(), eventId, body, pinnedMs / 1000 - 5);
          expect((await deliver(h.service.url, scheme, body, inTime)).status).toBe(200);
        }
      } finally {
        await strict.close();
        await lenient.close();
      }
    },
  );

  it('refuses a tolerance below 1 s', async () => {
    await expect(startHarness({ webhookToleranceSec: 0 })).rejects.toThrow(/webhookToleranceSec/);
  });
});
