import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  type Harness,
  orderAndCheckout,
  startHarness,
  untilFulfilled,
  type ViewBody,
} from './service-harness.js';

describe('reference service on SQLite with the sandbox (Stripe signing)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ adminToken: 'admin-token-placeholder' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('order → checkout → webhook → paid → exactly one fulfilment, with attempts, journal, jobs and deliveries', async () => {
    const { orderId, checkout } = await orderAndCheckout(h.service.url);
    expect(checkout.status).toBe(201);
    expect(checkout.body.outcome).toBe('created');
    const attemptId = checkout.body.attempt?.id ?? '';
    expect(attemptId).not.toBe('');
    const view = await untilFulfilled(h.service.url, orderId);
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

  it('a second checkout of a paid order answers already-paid and creates nothing', async () => {
    const { orderId } = await orderAndCheckout(h.service.url);
    await untilFulfilled(h.service.url, orderId);
    const again = await call(h.service.url, 'POST', `/orders/${orderId}/checkout`, { key: `again-${orderId}` });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ outcome: 'already-paid', attempt: null });
    const view = await call<ViewBody>(h.service.url, 'GET', `/orders/${orderId}`);
    expect(view.body.attempts).toHaveLength(1);
    expect(view.body.fulfilments).toHaveLength(1);
  });
});
