import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { withPgTransaction } from '../../packages/payonce/src/tx/pg.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout, eventId, openAttempt, sentStatements } from './payments-fixtures.js';

/**
 * Issue #40: a group-commit batch's orders and attempts are locked ahead in two statements
 * (`Payments.prelockProviderEvents`), and each event's `applyProviderEvent` in that transaction takes its target from
 * there instead of sending its own two lock statements — with exactly the outcome its own statements would give.
 */
for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: provider events locked ahead for a batch`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
    }, 60_000);
    afterAll(async () => backend?.drop());

    const locks = (texts: readonly string[]) => texts.filter((text) => /for update/i.test(text));
    const applyHeld = (trx: never, event: ReturnType<typeof eventAbout>) =>
      payments.applyProviderEvent(event, trx, { receiptHeld: true });

    /** `events` locked ahead and then applied one after another under a held receipt, in ONE transaction. */
    const lockedAndApplied = (events: readonly ReturnType<typeof eventAbout>[]) =>
      transaction(store, async (trx) => {
        const locked = await payments.prelockProviderEvents(events, trx);
        const applied = [];
        for (const event of events) applied.push(await applyHeld(trx as never, event));
        return { locked, applied };
      });

    it.runIf(dialect === 'postgres')(
      'locks the orders, then the attempts, in two statements; each event then sends no lock and writes as alone',
      async () => {
        const opened = await Promise.all([openAttempt(payments), openAttempt(payments), openAttempt(payments)]);
        const events = opened.map(({ attempt }) => eventAbout(attempt));
        const { result, texts } = await sentStatements(() => lockedAndApplied(events));
        expect(result.locked).toBe(3);
        expect(result.applied.map((one) => [one.decision, one.becamePaid, one.duplicate])).toEqual(
          Array(3).fill(['applied', true, false]),
        );
        // The orders' statement (in id order) and the attempts' statement: no lock of any event's own.
        const sentLocks = locks(texts);
        expect(sentLocks).toHaveLength(2);
        expect(sentLocks[0]).toMatch(/from "payonce_orders" where id = any\(array\(/);
        expect(sentLocks[0]).toMatch(/order by "id" for update$/);
        expect(sentLocks[1]).toMatch(/^select "payonce_payment_attempts"\.\*/);
        for (const { order, attempt } of opened) {
          expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: attempt.id });
          expect((await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).map((job) => job.topic)).toEqual([
            FULFIL_TOPIC,
          ]);
        }
      },
    );

    it.runIf(dialect === 'postgres')(
      'answers an event journaled already as a duplicate, from what was read ahead',
      async () => {
        const first = await openAttempt(payments);
        const second = await openAttempt(payments);
        const done = eventAbout(first.attempt);
        await transaction(store, (trx) => applyHeld(trx as never, done));
        const fresh = eventAbout(second.attempt);
        const { result, texts } = await sentStatements(() =>
          transaction(store, async (trx) => {
            const locked = await payments.prelockProviderEvents([done, fresh], trx);
            return { locked, again: await applyHeld(trx as never, done), now: await applyHeld(trx as never, fresh) };
          }),
        );
        expect(result.locked).toBe(2);
        expect(locks(texts)).toHaveLength(2);
        expect(result.again).toMatchObject({ decision: 'applied', duplicate: true, becamePaid: false });
        expect(result.now).toMatchObject({ decision: 'applied', duplicate: false, becamePaid: true });
        expect(await payments.outbox.jobsByDedupeKey(`order:${first.order.id}`)).toHaveLength(1);
      },
    );

    it.runIf(dialect === 'postgres')(
      'leaves a payment id named twice to its events own statements: one transition, one job',
      async () => {
        const twice = await openAttempt(payments);
        const once = await openAttempt(payments);
        const events = [eventAbout(twice.attempt), eventAbout(twice.attempt), eventAbout(once.attempt)];
        const { result, texts } = await sentStatements(() => lockedAndApplied(events));
        expect(result.locked).toBe(1);
        expect(result.applied.map((one) => one.becamePaid)).toEqual([true, false, true]);
        // Two ahead, two for each event of the twice-named payment (each of those drops the rest: the third's too).
        expect(locks(texts)).toHaveLength(2 + 2 + 2 + 2);
        for (const { order } of [twice, once]) {
          expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
        }
      },
    );

    it.runIf(dialect === 'postgres').each([
      // One provider: both attempts' events in its group, the order reached twice, so only the third is locked ahead.
      ['the same provider', 'fake', 1],
      // Two: only the larger group is locked ahead (the failed attempt's and the third); the other provider's event
      // sends its own statements, which drops what is left.
      ['another provider', 'other', 2],
    ])(
      'leaves an order two events reach through two of its attempts (%s) to their own statements',
      async (_, name, expected) => {
        const { order, attempt: failed } = await openAttempt(payments);
        await payments.applyProviderEvent(eventAbout(failed, { status: 'failed' }));
        const second =
          name === 'fake' ? payments : new Payments(store, { provider: new InMemoryPaymentProvider({ name }) });
        const reopened = await second.openCheckout(order.id, 'customer-a');
        if (reopened.kind !== 'attempt') throw new Error(reopened.kind);
        const other = await openAttempt(payments);
        // A late success of the failed attempt and the success of the new one, in one batch.
        const reopenedEvent = eventAbout(reopened.attempt, { provider: name, key: new RequestKey(name, eventId('r')) });
        const events = [eventAbout(failed), reopenedEvent, eventAbout(other.attempt)];
        const result = await lockedAndApplied(events);
        expect(result.locked).toBe(expected);
        expect(result.applied.filter((one) => one.becamePaid).map((one) => one.orderId)).toEqual([
          order.id,
          other.order.id,
        ]);
        expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
      },
    );

    it.runIf(dialect === 'postgres')(
      'drops what was read ahead once the transaction locks an order by another path: a cancelled order is not paid',
      async () => {
        const kept = await openAttempt(payments);
        const cancelled = await openAttempt(payments);
        const events = [eventAbout(kept.attempt), eventAbout(cancelled.attempt)];
        const result = await transaction(store, async (trx) => {
          expect(await payments.prelockProviderEvents(events, trx)).toBe(2);
          // Another path of the same transaction changes an order read ahead.
          await payments.advanceOrder(trx, cancelled.order.id, 'cancelled');
          return [await applyHeld(trx as never, events[0]!), await applyHeld(trx as never, events[1]!)];
        });
        expect(result[0]).toMatchObject({ decision: 'applied', becamePaid: true });
        // Read ahead, the order was `awaiting_payment`: answered from there it would have been paid.
        expect(result[1]?.becamePaid).toBe(false);
        expect((await payments.findOrder(cancelled.order.id))?.status).toBe('cancelled');
        expect(await payments.outbox.jobsByDedupeKey(`order:${cancelled.order.id}`)).toHaveLength(0);
        expect(result[1]?.reason).toMatch(/order is cancelled: needs a refund/);
      },
    );

    it.runIf(dialect === 'postgres')(
      'drops what was read ahead when an order is locked through another Kysely view of the transaction',
      async () => {
        const kept = await openAttempt(payments);
        const cancelled = await openAttempt(payments);
        const events = [eventAbout(kept.attempt), eventAbout(cancelled.attempt)];
        const passThrough: KyselyPlugin = {
          transformQuery: (args) => args.node,
          transformResult: async (args) => args.result,
        };
        const result = await transaction(store, async (trx) => {
          expect(await payments.prelockProviderEvents(events, trx)).toBe(2);
          // The same transaction through a view with a plugin: a new executor, which cannot be told from another.
          await payments.advanceOrder(trx.withPlugin(passThrough), cancelled.order.id, 'cancelled');
          return [await applyHeld(trx as never, events[0]!), await applyHeld(trx as never, events[1]!)];
        });
        expect(result[1]?.becamePaid).toBe(false);
        expect((await payments.findOrder(cancelled.order.id))?.status).toBe('cancelled');
        expect(await payments.outbox.jobsByDedupeKey(`order:${cancelled.order.id}`)).toHaveLength(0);
      },
    );

    it.runIf(dialect === 'postgres')(
      "locks nothing ahead in a transaction payonce did not open (the application's own, joined)",
      async () => {
        const { attempt } = await openAttempt(payments);
        const client = new pg.Client({
          connectionString: process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
          options: `-c search_path=${backend.target}`,
        });
        await client.connect();
        try {
          await client.query('begin');
          const locked = await withPgTransaction(store, client, (trx) =>
            payments.prelockProviderEvents([eventAbout(attempt), eventAbout(attempt, { paymentId: 'pi_other' })], trx),
          );
          await client.query('rollback');
          expect(locked).toBe(0);
        } finally {
          await client.end();
        }
      },
    );

    it.runIf(dialect === 'postgres')(
      'an event that parks under the same event id drops what was read ahead: the other is a duplicate',
      async () => {
        const { attempt } = await openAttempt(payments);
        const paying = eventAbout(attempt);
        // Same event id, no payment id and a merchant reference nothing matches: it parks, journaling the id.
        const parking = eventAbout(attempt, { key: paying.key, paymentId: null, merchantReference: 'no-such-attempt' });
        const both = await transaction(store, async (trx) => {
          // Given together, the event id is named twice: nothing is locked ahead.
          expect(await payments.prelockProviderEvents([paying, parking], trx)).toBe(0);
          return [await applyHeld(trx as never, parking), await applyHeld(trx as never, paying)];
        });
        expect(both.map((one) => [one.decision, one.duplicate])).toEqual([
          ['parked', false],
          ['parked', true],
        ]);
        const { attempt: second } = await openAttempt(payments);
        const paid = eventAbout(second);
        const parked = eventAbout(second, { key: paid.key, paymentId: null, merchantReference: 'no-such-attempt' });
        const alone = await transaction(store, async (trx) => {
          // Only the paying one given: locked ahead; the parking one's journal row then drops it.
          expect(await payments.prelockProviderEvents([paid], trx)).toBe(1);
          return [await applyHeld(trx as never, parked), await applyHeld(trx as never, paid)];
        });
        expect(alone.map((one) => [one.decision, one.duplicate])).toEqual([
          ['parked', false],
          ['parked', true],
        ]);
      },
    );

    it.runIf(dialect === 'postgres')('locks nothing ahead for a payment id no attempt carries yet', async () => {
      const { attempt } = await openAttempt(payments);
      const unknown = eventAbout(attempt, { paymentId: `pi_unknown_${process.pid}`, merchantReference: null });
      const locked = await transaction(store, (trx) => payments.prelockProviderEvents([unknown], trx));
      expect(locked).toBe(0);
    });

    it.runIf(dialect !== 'postgres')('sends nothing and locks nothing ahead', async () => {
      const opened = await Promise.all([openAttempt(payments), openAttempt(payments)]);
      const events = opened.map(({ attempt }) => eventAbout(attempt));
      const { result, texts } = await sentStatements(() => lockedAndApplied(events));
      expect(result.locked).toBe(0);
      expect(texts).toHaveLength(0);
      for (const { order } of opened) expect((await payments.findOrder(order.id))?.status).toBe('paid');
    });
  });
}
