import { type KyselyPlugin, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { GroupCommit } from '../../packages/payonce/src/stores/sql/group-commit.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { withPgTransaction } from '../../packages/payonce/src/tx/pg.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { gated } from '../stores/sql/support/group-gate.js';
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
      'leaves a payment id named twice to the statements of its events: one transition, one job',
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
      "refuses to pay an order the transaction's own SQL changed after it was read ahead: nothing is moved",
      async () => {
        const kept = await openAttempt(payments);
        const changed = await openAttempt(payments);
        const events = [eventAbout(kept.attempt), eventAbout(changed.attempt)];
        // Against the rule of the read ahead: the application cancels an order by its own SQL in the transaction.
        const attempt = transaction(store, async (trx) => {
          expect(await payments.prelockProviderEvents(events, trx)).toBe(2);
          await sql`update payonce_orders set status = 'cancelled' where id = ${changed.order.id}`.execute(trx);
          await applyHeld(trx as never, events[0]!);
          return await applyHeld(trx as never, events[1]!);
        });
        await expect(attempt).rejects.toThrow(/is no longer awaiting_payment under this transaction's lock/);
        // Rolled back whole: neither order moved, no job.
        expect((await payments.findOrder(changed.order.id))?.status).toBe('awaiting_payment');
        expect((await payments.findOrder(kept.order.id))?.status).toBe('awaiting_payment');
        expect(await payments.outbox.jobsByDedupeKey(`order:${changed.order.id}`)).toHaveLength(0);
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

    /** A client of its own on the test's schema (another session). */
    async function otherSession(): Promise<pg.Client> {
      const client = new pg.Client({
        connectionString: process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
        options: `-c search_path=${backend.target}`,
      });
      await client.connect();
      return client;
    }

    it.runIf(dialect === 'postgres')(
      'never locks an attempt whose order it did not lock (its payment id set while the orders waited)',
      async () => {
        const waiting = await openAttempt(payments);
        const late = await openAttempt(payments);
        const lateId = late.attempt.providerPaymentId as string;
        const holder = await otherSession();
        const other = await otherSession();
        try {
          // The late attempt has no payment id yet; an order of the batch is held by another transaction.
          await other.query('update payonce_payment_attempts set provider_payment_id = null where id = $1', [
            late.attempt.id,
          ]);
          await holder.query('begin');
          await holder.query('select id from payonce_orders where id = $1 for update', [waiting.order.id]);
          const events = [eventAbout(waiting.attempt), eventAbout(late.attempt)];
          const batch = transaction(store, async (trx) => {
            const locked = await payments.prelockProviderEvents(events, trx);
            // Still inside the batch's transaction: the late attempt's row must be free (its order is not locked).
            const probe = await other.query('select id from payonce_payment_attempts where id = $1 for update nowait', [
              late.attempt.id,
            ]);
            return { locked, probed: probe.rowCount };
          });
          // The batch's orders statement waits on the held order (a session blocked by the holder's, whatever other
          // tests run meanwhile); meanwhile the late attempt learns its payment id.
          const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
          const waitingOnLock = async () =>
            (
              await other.query<{ n: number }>(
                'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
                [holderPid],
              )
            ).rows[0]!.n > 0;
          while (!(await waitingOnLock())) await new Promise((resolve) => setTimeout(resolve, 20));
          await other.query('update payonce_payment_attempts set provider_payment_id = $1 where id = $2', [
            lateId,
            late.attempt.id,
          ]);
          await holder.query('commit');
          const { locked, probed } = await batch;
          expect(locked).toBe(1);
          expect(probed).toBe(1);
        } finally {
          await holder.end();
          await other.end();
        }
      },
    );

    it.runIf(dialect === 'postgres')(
      "drops what was read ahead when payonce rolls the transaction back to a caller's savepoint",
      async () => {
        const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
        const first = await openAttempt(payments);
        const second = await openAttempt(payments);
        const events = [eventAbout(first.attempt), eventAbout(second.attempt)];
        let failed = false;
        const { texts } = await sentStatements(async () => {
          const open = await gated(group as GroupCommit<unknown>);
          const answers = Promise.allSettled([
            group.run(async (tx) => {
              // Locked ahead inside this caller's own work, then it fails: the first run of the batch rolls back
              // whole, the second gives it a savepoint, and the rollback to it releases what it locked there.
              await payments.prelockProviderEvents(events, tx as never);
              failed = true;
              throw new Error('the caller failed after locking ahead');
            }),
            group.run((tx) => applyHeld(tx as never, events[1]!)),
          ]);
          await open();
          return await answers;
        });
        expect(failed).toBe(true);
        expect((await payments.findOrder(second.order.id))?.status).toBe('paid');
        // After the last rollback to the savepoint, the second event sent its own locks.
        const afterRollback = texts.slice(texts.lastIndexOf('rollback to savepoint payonce_share'));
        expect(afterRollback.some((text) => /^select \* from "payonce_orders" where "id" = \(select/.test(text))).toBe(
          true,
        );
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
