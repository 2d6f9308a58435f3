import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULFIL_TOPIC, MONEY_ON_CLOSED_ATTEMPT } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import { type CheckoutResult, type PaymentAlert, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout } from './payments-fixtures.js';

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: a success reported on an attempt recorded failed/cancelled`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.drop();
    });

    function setup() {
      const provider = new InMemoryPaymentProvider();
      const alerts: PaymentAlert[] = [];
      const payments = new Payments(store, { provider, onAlert: (alert) => alerts.push(alert) });
      return { provider, payments, alerts };
    }

    /** An order whose first attempt the provider created (pending) and then reported failed (payment_failed). */
    async function failedAttempt(payments: Payments<unknown>) {
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const pending = attemptOf(await payments.openCheckout(order.id, 'alice'));
      const failedEvent = eventAbout(pending, {
        status: 'failed',
        eventType: 'payment.failed',
        amountMinor: null,
        currency: null,
      });
      expect(await payments.applyProviderEvent(failedEvent)).toMatchObject({ decision: 'applied' });
      const failed = (await payments.attemptsOf(order.id))[0]!;
      expect(failed.status).toBe('failed');
      return { order, failed };
    }

    async function fulfilJob(payments: Payments<unknown>, orderId: string) {
      return payments.outbox.find(FULFIL_TOPIC, `order:${orderId}`);
    }

    it('order not paid, no other attempt: applied as a journaled, alerted late success; paid once, fulfilled once', async () => {
      const { payments, alerts } = setup();
      const { order, failed } = await failedAttempt(payments);
      const late = eventAbout(failed);
      const result = await payments.applyProviderEvent(late);
      expect(result).toMatchObject({ decision: 'applied', becamePaid: true, attemptId: failed.id });
      expect(result.reason).toContain(`${MONEY_ON_CLOSED_ATTEMPT} failed`);
      expect(await payments.attemptsOf(order.id)).toMatchObject([{ id: failed.id, status: 'succeeded' }]);
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: failed.id });
      expect((await fulfilJob(payments, order.id))?.payload).toMatchObject({ attemptId: failed.id });
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ attemptId: failed.id, orderId: order.id });
      expect(alerts[0]?.reason).toBe(
        `${MONEY_ON_CLOSED_ATTEMPT} failed: applied as a late success, order paid by this attempt; review`,
      );
      const journal = await payments.journalOf(order.id);
      expect(journal.find((e) => e.eventId === late.key?.externalId)).toMatchObject({ decision: 'applied' });
      expect(journal.find((e) => e.eventId === late.key?.externalId)?.reason).toContain(MONEY_ON_CLOSED_ATTEMPT);

      const again = await payments.applyProviderEvent({ ...late });
      expect(again).toMatchObject({ duplicate: true, becamePaid: false });
      const secondId = await payments.applyProviderEvent(eventAbout(failed));
      expect(secondId).toMatchObject({ decision: 'unchanged', becamePaid: false });
      expect(alerts).toHaveLength(1);
      expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('already-paid');
    });

    it('a newer attempt is still open: the late success pays the order and the alert says to cancel the open one', async () => {
      const { payments, alerts } = setup();
      const { order, failed } = await failedAttempt(payments);
      const open = attemptOf(await payments.openCheckout(order.id, 'alice'));
      expect(open.id).not.toBe(failed.id);
      const result = await payments.applyProviderEvent(eventAbout(failed));
      expect(result).toMatchObject({ decision: 'applied', becamePaid: true });
      expect(alerts.at(-1)?.reason).toContain(`attempt ${open.id} is still open: cancel it`);
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: failed.id });
      const openSucceeds = await payments.applyProviderEvent(eventAbout(open));
      expect(openSucceeds).toMatchObject({ decision: 'applied', becamePaid: false });
      expect(openSucceeds.reason).toContain('needs a refund or review');
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: failed.id });
      expect((await fulfilJob(payments, order.id))?.payload).toMatchObject({ attemptId: failed.id });
    });

    it('the order was already paid by another attempt: alerted as a double charge, no second fulfilment; refunding it leaves the order paid', async () => {
      const { payments, alerts } = setup();
      const { order, failed } = await failedAttempt(payments);
      const second = attemptOf(await payments.openCheckout(order.id, 'alice'));
      expect(await payments.applyProviderEvent(eventAbout(second))).toMatchObject({ becamePaid: true });
      expect(alerts).toEqual([]);

      const late = await payments.applyProviderEvent(eventAbout(failed));
      expect(late).toMatchObject({ decision: 'applied', becamePaid: false });
      expect(late.reason).toBe(
        `${MONEY_ON_CLOSED_ATTEMPT} failed: order already paid by attempt ${second.id}: double charge, refund or review`,
      );
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ attemptId: failed.id, reason: late.reason });
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: second.id });
      expect((await fulfilJob(payments, order.id))?.payload).toMatchObject({ attemptId: second.id });

      const refund = await payments.applyProviderEvent(
        eventAbout(failed, { status: 'refunded', eventType: 'charge.refunded' }),
      );
      expect(refund).toMatchObject({ decision: 'unchanged' });
      expect(refund.reason).toContain('did not pay the order');
      expect((await payments.findOrder(order.id))?.status).toBe('paid');
    });

    it('a success after a cancel on an order that was then cancelled elsewhere is never dropped silently', async () => {
      const { payments, alerts } = setup();
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const attempt = attemptOf(await payments.openCheckout(order.id, 'alice'));
      await payments.applyProviderEvent(
        eventAbout(attempt, { status: 'cancelled', eventType: 'payment.canceled', amountMinor: null, currency: null }),
      );
      await store.db.transaction().execute((trx) => payments.advanceOrder(trx, order.id, 'cancelled'));
      const late = await payments.applyProviderEvent(eventAbout(attempt));
      expect(late).toMatchObject({ decision: 'applied', becamePaid: false });
      expect(late.reason).toBe(`${MONEY_ON_CLOSED_ATTEMPT} cancelled: order is cancelled: refund or review`);
      expect(alerts.map((a) => a.reason)).toEqual([late.reason]);
      expect((await payments.findOrder(order.id))?.status).toBe('cancelled');
      expect(await fulfilJob(payments, order.id)).toBeNull();
    });
  });
}
