import { describe, expect, it } from 'vitest';
import { call, type Harness, orderAndCheckout, startHarness, until, untilFulfilled } from './service-harness.js';

// A checkout of a paid order answers `already-paid` with the order and the attempt that paid it, both as read in the
// one transaction that locked the order. A refund that commits between that transaction and the answer must not
// produce "already-paid" with a `refunded` order: the Idempotency-Key layer stores the answer and replays it.

interface CheckoutBody {
  outcome: string;
  order: { id: string; status: string; paidAttemptId: string | null };
  attempt: { id: string; status: string; providerPaymentId: string | null } | null;
}

describe('checkout of a paid order', () => {
  it('answers the order and its paying attempt as locked together, even when a refund commits before the answer', async () => {
    let refundBeforeAnswer: ((orderId: string, paymentId: string) => Promise<void>) | null = null;
    const h: Harness = await startHarness({
      overrides: {
        checkout: async (ctx, orderId, principal) => {
          const result = await ctx.payments.openCheckout(orderId, principal);
          const paymentId = result.kind === 'already-paid' ? result.paidAttempt?.providerPaymentId : null;
          if (refundBeforeAnswer && paymentId) await refundBeforeAnswer(orderId, paymentId);
          return result;
        },
      },
    });
    try {
      const url = h.service.url;
      const { orderId, checkout } = await orderAndCheckout(url);
      const paidBy = checkout.body.attempt?.id;
      await untilFulfilled(url, orderId);
      refundBeforeAnswer = async (id, paymentId) => {
        await h.sandbox.controls.refund(paymentId);
        await until(
          async () => (await h.service.context.payments.findOrder(id))?.status === 'refunded',
          10_000,
          'the refund to reach the order',
        );
      };
      const key = `after-refund-${orderId}`;
      const answer = await call<CheckoutBody>(url, 'POST', `/orders/${orderId}/checkout`, { key });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.outcome).toBe('already-paid');
      expect(answer.body.order).toMatchObject({ id: orderId, status: 'completed', paidAttemptId: paidBy });
      expect(answer.body.attempt).toMatchObject({ id: paidBy, status: 'succeeded' });
      expect((await h.service.context.payments.findOrder(orderId))?.status).toBe('refunded');

      refundBeforeAnswer = null;
      const replay = await call(url, 'POST', `/orders/${orderId}/checkout`, { key });
      expect([replay.status, replay.text]).toEqual([200, answer.text]);
      const fresh = await call<{ code?: string }>(url, 'POST', `/orders/${orderId}/checkout`, { key: `${key}-2` });
      expect(fresh.status, fresh.text).toBe(409);
    } finally {
      await h.close();
    }
  });
});
