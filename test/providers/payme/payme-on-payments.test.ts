import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { InMemoryPaymentProvider } from '../../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../../packages/payonce/src/payments/payments.js';
import {
  createPaymeMerchant,
  type PaymeMerchant,
  paymeOnPayments,
} from '../../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../../outbox/sql-backends.js';
import { orderFulfilJobs } from '../order-fulfil-jobs.js';
import { AMOUNT, code, GOOD_HEADERS, KEY, newPaymeId, PAYME_TIME } from './payme-fixtures.js';

type Rpc = { result?: Record<string, unknown>; error?: { code: number; data?: string } };

// The engine on top of `payments` (paymeOnPayments): Payme's transactions are the attempts of payments' orders, the
// order is paid once and its fulfilment job (payments' `order.fulfil`) enqueued once, and one active attempt per
// order holds across providers. SQLite and PostgreSQL (the engine's own suites cover MariaDB).
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`paymeOnPayments on ${dialect}`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    let merchant: PaymeMerchant;
    const clock = new ManualClock(PAYME_TIME + 1_000);

    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      payments = new Payments(store, { provider: new InMemoryPaymentProvider(), clock });
      merchant = createPaymeMerchant({ store, keys: KEY, clock, ...paymeOnPayments(payments) });
    });
    afterAll(async () => backend?.drop());

    const call = async (method: string, params: Record<string, unknown>): Promise<Rpc> => {
      const rawBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      return JSON.parse((await merchant.handle({ rawBody, headers: GOOD_HEADERS })).body) as Rpc;
    };
    const fulfilJobs = (orderId: string) => orderFulfilJobs(store, orderId);
    const newOrder = async (currency = 'UZS') =>
      (await payments.createOrder('customer-a', { amountMinor: AMOUNT, currency })).id;
    const pay = async (orderId: string, id = newPaymeId()) => {
      const account = { order_id: orderId };
      const created = await call('CreateTransaction', { id, time: clock.now(), amount: AMOUNT, account });
      const performed = await call('PerformTransaction', { id });
      return { id, created, performed };
    };

    it('pays the order once: Perform repeated, one paid attempt, one fulfilment job', async () => {
      const orderId = await newOrder();
      const check = await call('CheckPerformTransaction', { amount: AMOUNT, account: { order_id: orderId } });
      expect(check.result).toEqual({ allow: true });
      const { id, created, performed } = await pay(orderId);
      expect(created.result?.state).toBe(1);
      expect(performed.result?.state).toBe(2);
      expect((await call('PerformTransaction', { id })).result).toEqual(performed.result);
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      const attempts = await payments.attemptsOf(orderId);
      expect(attempts.map((a) => [a.provider, a.providerPaymentId, a.status])).toEqual([['payme', id, 'succeeded']]);
      expect(await fulfilJobs(orderId)).toBe(1);
    });

    it('refuses a second Payme transaction and a paid order; a foreign currency or amount', async () => {
      const orderId = await newOrder();
      const first = newPaymeId();
      const account = { order_id: orderId };
      await call('CreateTransaction', { id: first, time: clock.now(), amount: AMOUNT, account });
      const second = await call('CreateTransaction', { id: newPaymeId(), time: clock.now(), amount: AMOUNT, account });
      expect(second.error?.code).toBeLessThanOrEqual(code('-31050..-31099'));
      await call('PerformTransaction', { id: first });
      const again = await call('CheckPerformTransaction', { amount: AMOUNT, account });
      expect(again.error?.data).toBe('order_id');
      const euro = await newOrder('EUR');
      const foreign = await call('CheckPerformTransaction', { amount: AMOUNT, account: { order_id: euro } });
      expect(foreign.error?.code).toBe(-31050);
      const uzs = await newOrder();
      const wrong = await call('CheckPerformTransaction', { amount: AMOUNT + 100, account: { order_id: uzs } });
      expect(wrong.error?.code).toBe(code('-31001'));
    });

    it('Cancel before Perform releases the order (payable again); Cancel after Perform refunds it', async () => {
      const orderId = await newOrder();
      const first = newPaymeId();
      await call('CreateTransaction', { id: first, time: clock.now(), amount: AMOUNT, account: { order_id: orderId } });
      expect((await call('CancelTransaction', { id: first, reason: 3 })).result?.state).toBe(-1);
      expect((await payments.findOrder(orderId))?.status).not.toBe('paid');
      const { id } = await pay(orderId);
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect((await call('CancelTransaction', { id, reason: 5 })).result?.state).toBe(-2);
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
      expect(await fulfilJobs(orderId)).toBe(1);
    });
  });
}
