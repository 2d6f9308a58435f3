import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { clickOnPayments } from '../../packages/payonce/src/providers/click/index.js';
import { createPaymeMerchant, paymeOnPayments } from '../../packages/payonce/src/providers/payme/index.js';
import { uzumOnPayments } from '../../packages/payonce/src/providers/uzum/index.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { AMOUNT_TIYIN as CLICK_TIYIN, noteOf } from './click/click-fixtures.js';
import { type ClickBench, clickBench } from './click/click-harness.js';
import { orderFulfilJobs } from './order-fulfil-jobs.js';
import { KEY, newPaymeId, GOOD_HEADERS as PAYME_HEADERS } from './payme/payme-fixtures.js';
import { newTransId, SERVICE_ID as UZUM_SERVICE, code as uzumCode } from './uzum/uzum-fixtures.js';
import { type UzumBench, uzumBench } from './uzum/uzum-harness.js';

/** Click's answer code whose documented note starts with `text` (the shared fixtures' protocol.json). */
const clickCode = (text: string): number => {
  for (let n = 0; n >= -9; n -= 1) if (noteOf(n).startsWith(text)) return n;
  throw new Error(`no Click error "${text}"`);
};

// clickOnPayments and uzumOnPayments (and paymeOnPayments beside them): each provider's transactions are the
// attempts of `payments`' orders, an order is paid once with one fulfilment job, and the rule they share
// (`payments.lockPayableOrderIn`) keeps one active attempt per order ACROSS providers.
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`provider engines on payments (${dialect})`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    let click: ClickBench;
    let uzum: UzumBench;

    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
      click = clickBench(store, clickOnPayments(payments));
      uzum = uzumBench(store, uzumOnPayments(payments));
    });
    afterAll(async () => backend?.drop());

    const newOrder = async (amountMinor = CLICK_TIYIN, currency = 'UZS') =>
      (await payments.createOrder('customer-a', { amountMinor, currency })).id;
    const fulfilJobs = (orderId: string) => orderFulfilJobs(store, orderId);
    const providers = async (orderId: string) =>
      (await payments.attemptsOf(orderId)).map((a) => [a.provider, a.status]);
    const uzumCall = (operation: string, fields: Record<string, unknown>) =>
      uzum.call(operation, { serviceId: UZUM_SERVICE, timestamp: uzum.clock.now(), ...fields });

    it('Click: Prepare → Complete pays once; a repeat is "already paid"; a failed Complete leaves it payable', async () => {
      const orderId = await newOrder();
      const prepared = await click.prepare(orderId);
      expect(prepared.error).toBe(0);
      expect(await providers(orderId)).toEqual([['click', 'pending']]);
      expect((await click.complete(prepared)).error).toBe(0);
      expect((await click.complete(prepared)).error).toBe(0); // Click's repeat of its Complete: the same answer
      expect((await click.prepare(orderId)).error).toBe(clickCode('Already paid'));
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect(await fulfilJobs(orderId)).toBe(1);

      const failing = await newOrder();
      const first = await click.prepare(failing);
      expect((await click.complete(first, -5017)).error).toBe(clickCode('Transaction cancelled'));
      expect((await payments.findOrder(failing))?.status).not.toBe('paid');
      const second = await click.prepare(failing);
      expect((await click.complete(second)).error).toBe(0);
      expect(await providers(failing)).toEqual(
        expect.arrayContaining([
          ['click', 'cancelled'],
          ['click', 'succeeded'],
        ]),
      );
      expect(await fulfilJobs(failing)).toBe(1);
    });

    it('Uzum: create → confirm pays once; reverse after confirm refunds; reverse before confirm releases', async () => {
      const orderId = await newOrder();
      const params = { account: orderId };
      expect((await uzumCall('check', { params })).body.status).toBe('OK');
      const transId = newTransId();
      expect((await uzumCall('create', { transId, params, amount: CLICK_TIYIN })).body.status).toBe('CREATED');
      expect((await uzumCall('confirm', { transId })).body.status).toBe('CONFIRMED');
      expect((await uzumCall('confirm', { transId })).body.status).toBe('CONFIRMED');
      expect((await uzumCall('check', { params })).body.errorCode).toBe(uzumCode('payment already made'));
      expect(await fulfilJobs(orderId)).toBe(1);
      expect((await uzumCall('reverse', { transId })).body.status).toBe('REVERSED');
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');

      const released = await newOrder();
      const early = newTransId();
      await uzumCall('create', { transId: early, params: { account: released }, amount: CLICK_TIYIN });
      await uzumCall('reverse', { transId: early });
      expect((await uzumCall('check', { params: { account: released } })).body.status).toBe('OK');
      expect(await fulfilJobs(released)).toBe(0);
    });

    it('one active attempt per order across providers; another currency is no account for any of them', async () => {
      const payme = createPaymeMerchant({ store, keys: KEY, clock: uzum.clock, ...paymeOnPayments(payments) });
      const orderId = await newOrder();
      const rawBody = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTransaction',
        params: { id: newPaymeId(), time: uzum.clock.now(), amount: CLICK_TIYIN, account: { order_id: orderId } },
      });
      expect(JSON.parse((await payme.handle({ rawBody, headers: PAYME_HEADERS })).body).result.state).toBe(1);
      expect((await click.prepare(orderId)).error).toBe(clickCode('User does not exist'));
      const check = await uzumCall('check', { params: { account: orderId } });
      expect(check.body.errorCode).toBe(uzumCode('additional payment'));
      expect(await providers(orderId)).toEqual([['payme', 'pending']]);

      const euro = await newOrder(CLICK_TIYIN, 'EUR');
      expect((await click.prepare(euro)).error).toBe(clickCode('User does not exist'));
      expect((await uzumCall('check', { params: { account: euro } })).body.errorCode).toBe(
        uzumCode('additional payment'),
      );
      expect(await providers(euro)).toEqual([]);
    });
  });
}
