import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentProvider } from '../../packages/payonce/src/payments/payment-provider.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import { call, startHarness, until } from './service-harness.js';

// A checkout whose process dies mid-request leaves its Idempotency-Key claim `in progress`. The customer's retry
// is answered 409 (with Retry-After) until the claim is older than --idempotency-stale-after-ms, then it takes the
// claim over and is answered; later retries replay that answer. The dead request is simulated by a checkout that
// never returns (its claim is held exactly as a killed process leaves it); the service clock is a ManualClock.

describe('checkout after a request that died holding its Idempotency-Key', () => {
  it('answers 409 until idempotencyStaleAfterMs, then the retry checks out once and later retries replay it', async () => {
    const clock = new ManualClock(Date.now());
    let calls = 0;
    let releaseDead: (error: Error) => void = () => {};
    const dead = new Promise<never>((_resolve, reject) => {
      releaseDead = reject;
    });
    const h = await startHarness({
      clock,
      idempotencyStaleAfterMs: 10_000,
      overrides: {
        checkout: async (ctx, orderId, principal) => {
          calls++;
          if (calls === 1) return dead;
          return ctx.payments.openCheckout(orderId, principal);
        },
      },
    });
    try {
      expect(h.service.context.config.idempotencyStaleAfterMs).toBe(10_000);
      const customer = 'customer-stale-claim';
      const created = await call<{ order: { id: string } }>(h.service.url, 'POST', '/orders', {
        customer,
        body: { amountMinor: 1999, currency: 'EUR' },
      });
      const path = `/orders/${created.body.order.id}/checkout`;
      const key = 'checkout-key-stale-claim';
      const first = call(h.service.url, 'POST', path, { customer, key });
      first.catch(() => {});
      await until(async () => calls === 1, 10_000, 'the first checkout to hold its Idempotency-Key claim');
      const busy = await call(h.service.url, 'POST', path, { customer, key });
      expect(busy.status).toBe(409);
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(busy.headers.get('retry-after'))).toBeLessThanOrEqual(10);

      clock.advance(9_000);
      expect((await call(h.service.url, 'POST', path, { customer, key })).status).toBe(409);
      expect(calls).toBe(1);

      clock.advance(1_001);
      const retry = await call<{ outcome: string; attempt: { id: string } }>(h.service.url, 'POST', path, {
        customer,
        key,
      });
      expect(retry.status, retry.text).toBe(201);
      expect(retry.body.outcome).toBe('created');
      expect(calls).toBe(2);

      const replayed = await call(h.service.url, 'POST', path, { customer, key });
      expect(replayed.status).toBe(201);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.text).toBe(retry.text);
      expect(calls).toBe(2);

      // The dead request "comes back" with a failure: it was fenced out, the stored answer stands.
      releaseDead(new Error('the process serving this request died'));
      await first;
      const after = await call(h.service.url, 'POST', path, { customer, key });
      expect(after.status).toBe(201);
      expect(after.text).toBe(retry.text);
      const view = await call<{ attempts: unknown[] }>(h.service.url, 'GET', `/orders/${created.body.order.id}`, {
        customer,
      });
      expect(view.body.attempts).toHaveLength(1);
    } finally {
      releaseDead(new Error('test over'));
      await h.close();
    }
  });

  it('a retry after the process died waiting for the provider answers the attempt it left, once stale', async () => {
    const clock = new ManualClock(Date.now());
    const inner = new InMemoryPaymentProvider({ name: 'stripe' });
    let creates = 0;
    let releaseDead: (error: Error) => void = () => {};
    const dead = new Promise<never>((_resolve, reject) => {
      releaseDead = reject;
    });
    const provider: PaymentProvider = {
      name: inner.name,
      createPayment: (request) => (++creates === 1 ? dead : inner.createPayment(request)),
      getPaymentByReference: (reference) => inner.getPaymentByReference(reference),
      cancel: (paymentId) => inner.cancel(paymentId),
    };
    const h = await startHarness({ clock, provider, worker: false, idempotencyStaleAfterMs: 10_000 });
    try {
      const customer = 'customer-died-at-provider';
      const created = await call<{ order: { id: string } }>(h.service.url, 'POST', '/orders', {
        customer,
        body: { amountMinor: 1999, currency: 'EUR' },
      });
      const orderId = created.body.order.id;
      const path = `/orders/${orderId}/checkout`;
      const key = 'checkout-key-died-at-provider';
      const first = call(h.service.url, 'POST', path, { customer, key });
      first.catch(() => {});
      await until(async () => creates === 1, 10_000, 'the first checkout to call the provider');
      const left = await h.service.context.payments.attemptsOf(orderId);
      expect(left.map((a) => a.status)).toEqual(['creating']);
      expect((await call(h.service.url, 'POST', path, { customer, key })).status).toBe(409);

      clock.advance(10_000);
      const retry = await call<{ outcome: string; attempt: { id: string; status: string } }>(
        h.service.url,
        'POST',
        path,
        { customer, key },
      );
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.outcome).toBe('existing');
      expect(retry.body.attempt).toMatchObject({ id: left[0]!.id, status: 'creating' });
      expect(creates).toBe(1);
      const again = await call(h.service.url, 'POST', path, { customer, key });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(retry.text);
    } finally {
      releaseDead(new Error('test over'));
      await h.close();
    }
  });

  it('defaults to 60 s and must exceed the provider timeout', () => {
    expect(resolveServiceConfig({}).idempotencyStaleAfterMs).toBe(60_000);
    expect(() => resolveServiceConfig({ idempotencyStaleAfterMs: 5_000 })).toThrow(/providerTimeoutMs/);
    expect(resolveServiceConfig({ idempotencyStaleAfterMs: 5_000, providerTimeoutMs: 1_000 })).toMatchObject({
      idempotencyStaleAfterMs: 5_000,
    });
  });
});
