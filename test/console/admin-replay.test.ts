import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { call, deliver, type Harness, startHarness, stripeIntentEvent, until } from '../service/service-harness.js';
import { admin } from './admin-client.js';

const TOKEN = `tok_${randomUUID()}`;
let h: Harness;
let failNext = false;

beforeAll(async () => {
  // Webhooks are delivered by hand here (the sandbox would redeliver a failure by itself).
  h = await startHarness({
    adminToken: TOKEN,
    connectWebhooks: false,
    overrides: {
      applyPaymentEvent: async (ctx, event) => {
        if (failNext) {
          failNext = false;
          throw new Error('warehouse database unreachable (simulated)');
        }
        return ctx.payments.applyProviderEvent(event);
      },
    },
  });
});
afterAll(async () => {
  await h?.close();
});

/** An order with an attempt the sandbox created; its success event is NOT delivered yet. */
async function pendingOrder() {
  const url = h.service.url;
  const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
    body: { amountMinor: 2500, currency: 'EUR' },
  });
  const orderId = created.body.order.id;
  const checkout = await call<{ attempt: { id: string; providerPaymentId: string } }>(
    url,
    'POST',
    `/orders/${orderId}/checkout`,
    {
      key: `k-${orderId}`,
    },
  );
  return { orderId, attempt: checkout.body.attempt };
}

/** A fresh `payment_intent.succeeded` event (id and JSON body) for the attempt of {@link pendingOrder}. */
function succeededEvent(attempt: { id: string; providerPaymentId: string }) {
  const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
  const body = stripeIntentEvent({
    eventId,
    type: 'payment_intent.succeeded',
    paymentId: attempt.providerPaymentId,
    merchantReference: attempt.id,
    amountMinor: 2500,
    currency: 'EUR',
  });
  return { eventId, body };
}

function signed(eventId: string, body: string) {
  const secret = h.sandbox.controls.signing().secret;
  return signedHeaders({ scheme: 'stripe', secret }, eventId, body, Math.floor(Date.now() / 1000));
}

describe('admin API: retry, replay one, reconcile', () => {
  it('retries a failed webhook receipt through the intake once; a second retry is refused', async () => {
    const { orderId, attempt } = await pendingOrder();
    const { eventId, body } = succeededEvent(attempt);
    failNext = true;
    const first = await deliver(h.service.url, 'stripe', body, signed(eventId, body));
    expect(first.status).toBe(500);
    expect(await h.service.context.intakeGuard.find(new RequestKey('stripe', eventId))).toMatchObject({
      status: 'failed',
    });

    const failed = await admin<{ items: { externalId: string }[] }>(
      h.service.url,
      'GET',
      '/admin/api/receipts?status=failed',
      { token: TOKEN },
    );
    expect(failed.body.items.map((r) => r.externalId)).toContain(eventId);
    const retried = await admin<{
      result: { verdict: string; result: { status: number; decision: string; outcome: string } };
    }>(h.service.url, 'POST', '/admin/api/receipts/retry', {
      token: TOKEN,
      body: { provider: 'stripe', externalId: eventId },
    });
    expect(retried.status).toBe(200);
    expect(retried.body.result).toMatchObject({
      verdict: 'retry',
      result: { status: 200, decision: 'new', outcome: 'completed' },
    });
    expect(await h.service.context.intakeGuard.find(new RequestKey('stripe', eventId))).toMatchObject({
      status: 'completed',
      attempts: 2,
    });
    await until(async () => {
      const view = await call<{ order: { status: string } }>(h.service.url, 'GET', `/orders/${orderId}`);
      return view.body.order.status === 'completed';
    });
    const again = await admin<{ code: string }>(h.service.url, 'POST', '/admin/api/receipts/retry', {
      token: TOKEN,
      body: { provider: 'stripe', externalId: eventId },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('RECEIPT_NOT_RETRYABLE');
    const actions = await admin<{ items: { action: string; outcome: string; orderId: string | null }[] }>(
      h.service.url,
      'GET',
      `/admin/api/actions?orderId=${orderId}`,
      { token: TOKEN },
    );
    expect(actions.body.items.map((a) => `${a.action}:${a.outcome}`)).toEqual(['retry-receipt:done']);
  });

  it('replays one delivery (dry run first: a duplicate changes nothing) and never a forgery', async () => {
    const deliveries = await admin<{ items: { id: string; signature: string; eventKey: string }[] }>(
      h.service.url,
      'GET',
      '/admin/api/deliveries?outcome=completed',
      { token: TOKEN },
    );
    const valid = deliveries.body.items[0];
    expect(valid?.signature).toBe('valid');
    const dry = await admin<{ dryRun: boolean; result: { verdict: string } }>(
      h.service.url,
      'POST',
      `/admin/api/deliveries/${valid?.id}/replay`,
      {
        token: TOKEN,
        body: { dryRun: true },
      },
    );
    expect(dry.body).toMatchObject({ dryRun: true, result: { verdict: 'duplicate' } });
    const run = await admin<{ result: { result: { status: number; decision: string } } }>(
      h.service.url,
      'POST',
      `/admin/api/deliveries/${valid?.id}/replay`,
      {
        token: TOKEN,
        body: { dryRun: false },
      },
    );
    expect(run.body.result.result).toMatchObject({ status: 200, decision: 'duplicate' });

    const forged = '{"id":"evt_forged","type":"payment_intent.succeeded"}';
    const refused = await deliver(h.service.url, 'stripe', forged, {
      'content-type': 'application/json',
      'stripe-signature': 't=1,v1=00',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const rejected = await admin<{ items: { id: string }[] }>(
      h.service.url,
      'GET',
      '/admin/api/deliveries?decision=rejected',
      { token: TOKEN },
    );
    const forgery = rejected.body.items[0]?.id;
    const notReplayable = await admin<{ code: string; detail: string }>(
      h.service.url,
      'POST',
      `/admin/api/deliveries/${forgery}/replay`,
      {
        token: TOKEN,
        body: { dryRun: true },
      },
    );
    expect(notReplayable.status).toBe(409);
    expect(notReplayable.body.code).toBe('DELIVERY_NOT_REPLAYABLE');
    expect(notReplayable.body.detail).toContain('never re-signed');
  });

  it('reconciles one attempt now: the provider status is applied once; unknown attempt is 404', async () => {
    const { orderId, attempt } = await pendingOrder();
    await h.sandbox.controls.idle(5_000); // the sandbox has settled the payment; its webhook is never delivered here
    const first = await admin<{ result: { outcome: string } }>(
      h.service.url,
      'POST',
      `/admin/api/attempts/${attempt.id}/reconcile`,
      {
        token: TOKEN,
        body: {},
      },
    );
    expect(first.status).toBe(200);
    const attempts = await admin<{ items: { status: string }[] }>(
      h.service.url,
      'GET',
      `/admin/api/attempts?orderId=${orderId}`,
      { token: TOKEN },
    );
    const status = attempts.body.items[0]?.status;
    expect(status).toBe('succeeded');
    expect(first.body.result).toEqual({ outcome: 'applied', from: 'pending', to: 'succeeded', reason: null });
    const second = await admin<{ result: { outcome: string } }>(
      h.service.url,
      'POST',
      `/admin/api/attempts/${attempt.id}/reconcile`,
      {
        token: TOKEN,
        body: {},
      },
    );
    expect(second.body.result.outcome).toBe('unchanged');
    const missing = await admin<{ code: string }>(h.service.url, 'POST', '/admin/api/attempts/nope/reconcile', {
      token: TOKEN,
      body: {},
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ATTEMPT_NOT_FOUND');
  });
});

describe('replay input: a dry run unless dryRun: false is sent; unknown keys and non-booleans are 400', () => {
  /** How many deliveries are journaled (a real replay adds one). */
  async function journaled(): Promise<number> {
    const page = await admin<{ items: unknown[] }>(h.service.url, 'GET', '/admin/api/deliveries?limit=200', {
      token: TOKEN,
    });
    return page.body.items.length;
  }

  it('refuses misspelled, null or string dry-run flags and unknown filters before anything is sent', async () => {
    const { attempt } = await pendingOrder();
    const { eventId, body } = succeededEvent(attempt);
    expect((await deliver(h.service.url, 'stripe', body, signed(eventId, body))).status).toBe(200);
    const rows = await admin<{ items: { id: string; eventKey: string }[] }>(
      h.service.url,
      'GET',
      `/admin/api/deliveries?eventKey=${eventId}`,
      { token: TOKEN },
    );
    const id = rows.body.items[0]?.id ?? '';
    expect(id).not.toBe('');
    const before = await journaled();
    const one = `/admin/api/deliveries/${id}/replay`;
    const range = '/admin/api/deliveries/replay';
    for (const [path, input] of [
      [one, { dry_run: true }],
      [one, { DryRun: true }],
      [one, { dryRun: null }],
      [one, { dryRun: 'true' }],
      [one, { dryRun: 0 }],
      [range, { dryRun: null }],
      [range, { filter: { eventkey: eventId } }],
      [range, { filter: { eventKey: eventId }, dry_run: true }],
      [range, { filter: { eventKey: eventId }, limit: '1' }],
    ] as const) {
      const refused = await admin<{ code: string }>(h.service.url, 'POST', path, { token: TOKEN, body: input });
      expect(refused.status, `${path} ${JSON.stringify(input)}`).toBe(400);
      expect(refused.body.code).toBe('ADMIN_QUERY_INVALID');
    }
    const misspelled = await admin<{ code: string }>(
      h.service.url,
      'GET',
      `/admin/api/deliveries?eventkey=${eventId}`,
      {
        token: TOKEN,
      },
    );
    expect(misspelled.status).toBe(400);
    expect(misspelled.body.code).toBe('ADMIN_QUERY_INVALID');
    expect(await journaled()).toBe(before);

    for (const input of [{}, { dryRun: true }]) {
      const dry = await admin<{ dryRun: boolean }>(h.service.url, 'POST', one, { token: TOKEN, body: input });
      expect(dry.status).toBe(200);
      expect(dry.body.dryRun).toBe(true);
    }
    const bare = await fetch(`${h.service.url}${one}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
      body: '',
    });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { dryRun: boolean }).dryRun).toBe(true);
    const rangeDry = await admin<{ dryRun: boolean; result: { considered: number } }>(h.service.url, 'POST', range, {
      token: TOKEN,
      body: { filter: { eventKey: eventId } },
    });
    expect(rangeDry.body).toMatchObject({ dryRun: true, result: { considered: 1 } });
    expect(await journaled()).toBe(before);

    const run = await admin<{ dryRun: boolean }>(h.service.url, 'POST', one, { token: TOKEN, body: { dryRun: false } });
    expect(run.body.dryRun).toBe(false);
    expect(await journaled()).toBe(before + 1);
  });
});
