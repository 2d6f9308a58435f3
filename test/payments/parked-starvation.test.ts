import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJournal } from '../../packages/payonce/src/payments/event-journal.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import type { PaymentReport } from '../../packages/payonce/src/payments/payment-report.js';
import { type CheckoutResult, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { PaymentsDatabase } from '../../packages/payonce/src/payments/payments-tables.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout, eventId } from './payments-fixtures.js';

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

const LIMIT = 3;

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: parked events that can never match do not starve newer ones`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.drop();
    });

    /** A success about `attempt`'s payment parked by a delivery that committed after the attempt learnt its id. */
    async function racedSuccess(attempt: PaymentAttempt, receivedAtMs: number): Promise<string> {
      const id = eventId('raced');
      const report: PaymentReport = {
        provider: 'fake',
        eventId: id,
        eventType: 'payment.succeeded',
        status: 'succeeded',
        paymentId: attempt.providerPaymentId,
        amountMinor: attempt.amountMinor,
        currency: attempt.currency,
        merchantReference: null,
        orderRef: null,
        occurredAtMs: null,
        actionUrl: null,
        error: null,
      };
      const decision = {
        decision: 'parked',
        reason: 'no attempt matches yet',
        attemptId: null,
        orderId: null,
      } as const;
      await insertJournal(
        { db: store.db as unknown as Kysely<PaymentsDatabase>, statements: store.statements },
        report,
        decision,
        receivedAtMs,
      );
      return id;
    }

    it(`more than limit (${LIMIT}) older unmatchable parked rows and refunds still waiting: reconcile still decides the matchable one`, async () => {
      const payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
      const base = Date.now() - 60_000;
      for (let i = 0; i < LIMIT + 2; i++) {
        const unknownPayment = { provider: 'fake', paymentId: `pay_nowhere_${randomUUID()}`, merchantReference: null };
        const parked = await payments.applyProviderEvent({
          ...eventAbout({ id: randomUUID(), amountMinor: 1999, currency: 'EUR' } as PaymentAttempt),
          ...unknownPayment,
        });
        expect(parked.decision).toBe('parked');
      }
      const waiting = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const waitingAttempt = attemptOf(await payments.openCheckout(waiting.id, 'alice'));
      for (let i = 0; i < LIMIT + 1; i++) {
        const refund = await payments.applyProviderEvent(
          eventAbout(waitingAttempt, { status: 'refunded', eventType: 'charge.refunded' }),
        );
        expect(refund.decision).toBe('parked');
      }
      expect((await payments.parkedEvents(1_000)).length).toBeGreaterThan(2 * LIMIT);

      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const attempt = attemptOf(await payments.openCheckout(order.id, 'alice'));
      const id = await racedSuccess(attempt, base + 120_000);

      const report = await payments.reconcile({ olderThanMs: 600_000, limit: LIMIT });
      expect(report.parkedMatched).toBe(1);
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: attempt.id });
      expect((await payments.journalOf(order.id)).find((e) => e.eventId === id)).toMatchObject({ decision: 'applied' });
      expect((await payments.findOrder(waiting.id))?.status).toBe('awaiting_payment');
      expect((await payments.reconcile({ olderThanMs: 600_000, limit: LIMIT })).parkedMatched).toBe(0);
    });
  });
}
