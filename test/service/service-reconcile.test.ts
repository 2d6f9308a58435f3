import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition } from '../observe/exposition.js';
import { call, type Harness, startHarness, untilFulfilled, type ViewBody } from './service-harness.js';

describe('provider timeout → unknown → reconciled (no webhooks reach the service)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      connectWebhooks: false,
      providerTimeoutMs: 300,
      reconcileAfterMs: 800,
      reconcileEveryMs: 100,
      reconcilePendingAfterMs: 400,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    ['hang-after-commit', { responseFault: 'hang-after-commit', hangMs: 2_000 }],
    ['drop-after-commit', { responseFault: 'drop-after-commit' }],
  ] as const)(
    'a create answered by %s leaves the attempt unknown until reconciliation finds the payment',
    async (_name, plan) => {
      const url = h.service.url;
      const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
        body: { amountMinor: 2500, currency: 'GBP' },
      });
      const orderId = created.body.order.id;
      h.sandbox.controls.plan({ orderId }, plan);
      const checkout = await call<{ outcome: string; attempt: { id: string; status: string } }>(
        url,
        'POST',
        `/orders/${orderId}/checkout`,
        { key: `timeout-${orderId}` },
      );
      expect(checkout.status).toBe(201);
      expect(checkout.body.attempt.status).toBe('unknown');
      const attemptId = checkout.body.attempt.id;
      const blocked = await call<{ outcome: string; attempt: { id: string } }>(
        url,
        'POST',
        `/orders/${orderId}/checkout`,
        {
          key: `timeout-again-${orderId}`,
        },
      );
      expect(blocked.status).toBe(200);
      expect(blocked.body).toMatchObject({ outcome: 'existing', attempt: { id: attemptId } });
      const unknown = parseExposition(await (await fetch(`${url}/metrics`)).text()).samples.find(
        (s) => s.name === 'payonce_payment_attempts_unknown',
      );
      expect(unknown?.value).toBeGreaterThanOrEqual(1);
      const view = await untilFulfilled(url, orderId, 'customer-a', 15_000);
      expect(view.attempts).toHaveLength(1);
      expect(view.attempts[0]).toMatchObject({ id: attemptId, status: 'succeeded' });
      expect(view.journal.some((e) => e.eventType === 'reconciliation' && e.decision === 'applied')).toBe(true);
      expect(view.paidTransitions).toBe(1);
      expect(view.fulfilments).toHaveLength(1);
      expect(view.deliveries).toEqual([]);
      expect(h.sandbox.controls.charges(attemptId)).toBe(1);
      expect(h.sandbox.controls.orderLedger(orderId).chargeCount).toBe(1);
    },
  );

  it('a create that never reached the provider (hang before commit): "not found" is no failure; the re-send with the same key charges once, no second attempt', async () => {
    const url = h.service.url;
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 2600, currency: 'GBP' },
    });
    const orderId = created.body.order.id;
    h.sandbox.controls.plan({ orderId }, { responseFault: 'hang-before-commit', hangMs: 1_000 });
    const checkout = await call<{ attempt: { id: string; status: string } }>(
      url,
      'POST',
      `/orders/${orderId}/checkout`,
      {
        key: `never-${orderId}`,
      },
    );
    expect(checkout.body.attempt.status).toBe('unknown');
    const attemptId = checkout.body.attempt.id;
    const view = await untilFulfilled(url, orderId, 'customer-a', 15_000);
    expect(view.attempts).toHaveLength(1);
    expect(view.attempts[0]).toMatchObject({ id: attemptId, status: 'succeeded' });
    expect(view.journal.some((e) => e.eventType === 'reconciliation.resend' && e.decision === 'applied')).toBe(true);
    expect(view.paidTransitions).toBe(1);
    expect(view.fulfilments).toHaveLength(1);
    expect(h.sandbox.controls.charges(attemptId)).toBe(1);
    expect(h.sandbox.controls.orderLedger(orderId).chargeCount).toBe(1);
    const retry = await call<{ outcome: string }>(url, 'POST', `/orders/${orderId}/checkout`, {
      key: `never-retry-${orderId}`,
    });
    expect(retry.body.outcome).not.toBe('created');
    expect(h.sandbox.controls.orderLedger(orderId).chargeCount).toBe(1);
  });
});

describe('pending attempts whose webhooks never came are re-checked with the provider', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ connectWebhooks: false, reconcilePendingAfterMs: 400, reconcileEveryMs: 100 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a pending attempt is found succeeded, paid once and fulfilled once; a held one stays pending', async () => {
    const url = h.service.url;
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 2700, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    const checkout = await call<{ attempt: { id: string; status: string } }>(
      url,
      'POST',
      `/orders/${orderId}/checkout`,
      {
        key: `silent-${orderId}`,
      },
    );
    expect(checkout.body.attempt.status).toBe('pending');
    const held = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 2800, currency: 'EUR' },
    });
    h.sandbox.controls.plan({ orderId: held.body.order.id }, { outcome: 'hold' });
    await call(url, 'POST', `/orders/${held.body.order.id}/checkout`, { key: `held-${held.body.order.id}` });
    const view = await untilFulfilled(url, orderId, 'customer-a', 15_000);
    expect(view.attempts[0]?.status).toBe('succeeded');
    expect(view.paidTransitions).toBe(1);
    expect(view.fulfilments).toHaveLength(1);
    expect(view.journal.filter((e) => e.eventType === 'reconciliation').map((e) => e.decision)).toEqual(['applied']);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const still = (await call<ViewBody>(url, 'GET', `/orders/${held.body.order.id}`)).body;
    expect(still.attempts[0]?.status).toBe('pending');
    expect(still.journal.filter((e) => e.eventType === 'reconciliation')).toEqual([]);
  });
});
