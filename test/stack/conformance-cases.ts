import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayonceError } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import { STACK_ADAPTERS } from './adapters/index.js';
import type { StackAdapter } from './stack-adapter.js';
import { openStackFixture, type StackDatabase, type StackStore, type StackTarget } from './stack-target.js';

// The conformance suite of the one-commit mode in the application's own transaction, written once and run per
// adapter (test/stack/adapters/) on every database its stack supports (a fresh namespace per run): receipt +
// business write + outbox row commit together or not at all, also when the process is killed; ten parallel copies
// of one delivery give one effect; the stack's own joins keep their columns; the handler gets the stack's own
// transaction object.

const CHILD = fileURLToPath(new URL('./kill-child.ts', import.meta.url));

/**
 * The conformance cases for every adapter of test/stack/adapters/ on `database` (each a describe of its own; a test
 * file per database lets the two workers share the suite).
 */
export function conformanceSuite(database: StackDatabase): void {
  const runs = Object.entries(STACK_ADAPTERS).flatMap(([adapterName, definition]) =>
    definition.databases.includes(database) ? [{ adapterName, definition }] : [],
  );
  for (const { adapterName, definition } of runs) {
    describe(`one commit in the stack's own transaction: ${adapterName} on ${database}`, () => {
      let fixture: Awaited<ReturnType<typeof openStackFixture>>;
      let target: StackTarget;
      let store: StackStore;
      let guard: IdempotencyGuard<StackStore>;
      let outbox: Outbox<ReceiptsDatabase>;
      let adapter: StackAdapter;
      let db: Kysely<ReceiptsDatabase>;

      beforeAll(async () => {
        fixture = await openStackFixture(database);
        ({ target, store } = fixture);
        db = store.db;
        guard = new IdempotencyGuard(store);
        outbox = new Outbox(store);
        adapter = await definition.make(target);
      });

      afterAll(async () => {
        await adapter?.close();
        await fixture?.drop();
      });

      /** What one event id left behind: receipt status, business rows, outbox jobs. */
      async function traces(eventId: string) {
        const receipt = await store.find(new RequestKey('stack', eventId));
        const count = async (query: string) =>
          Number((await sql.raw<{ n: string }>(query).execute(db)).rows[0]?.n ?? 0);
        return {
          receipt: receipt?.status ?? null,
          effects: await count(`select count(*) as n from stack_effects where event_id = '${eventId}'`),
          jobs: await count(`select count(*) as n from payonce_outbox where dedupe_key = '${eventId}'`),
        };
      }

      /** The suite's delivery: the business write through the stack, the outbox row through payonce's view. */
      const deliver = (eventId: string, fail = false) =>
        adapter.deliver(guard, new RequestKey('stack', eventId), async (ops, payonceTx) => {
          await ops.writeEffect(eventId);
          await outbox.enqueueOnce(payonceTx, 'order.fulfil', eventId, { eventId });
          if (fail) throw new Error('handler failed after its writes');
        });

      it('commits the receipt, the business write and the outbox row together', async () => {
        const outcome = await deliver('commit-1');
        expect(outcome.isReplay).toBe(false);
        expect(await traces('commit-1')).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
        const again = await deliver('commit-1');
        expect(again.isReplay).toBe(true);
        expect(await traces('commit-1')).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
      });

      it('leaves none of them when the handler throws, and the next delivery runs it', async () => {
        await expect(deliver('rollback-1', true)).rejects.toThrow('handler failed after its writes');
        expect(await traces('rollback-1')).toEqual({ receipt: null, effects: 0, jobs: 0 });
        expect((await deliver('rollback-1')).isReplay).toBe(false);
        expect(await traces('rollback-1')).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
      });

      it('gives one effect for the same delivery ten times in parallel', async () => {
        const settled = await Promise.allSettled(Array.from({ length: 10 }, () => deliver('parallel-1')));
        const fulfilled = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
        const rejected = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
        // A copy either replays the committed response or (a claim committed and still running) gets 409.
        for (const reason of rejected) expect((reason as PayonceError).code).toBe('REQUEST_IN_PROGRESS');
        expect(fulfilled.filter((outcome) => !outcome.isReplay)).toHaveLength(1);
        expect(await traces('parallel-1')).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
      });

      it("keeps the columns of the stack's own join (two tables with an id), and of one through payonce's view", async () => {
        await sql`insert into stack_customers (id, name) values ('cust_1', 'Ann'), ('cust_2', 'Bob')`.execute(db);
        await sql`insert into stack_orders (id, customer_id) values ('ord_1', 'cust_2'), ('ord_2', 'cust_1')`.execute(
          db,
        );
        let own: unknown;
        let viaPayonce: unknown;
        await adapter.deliver(guard, new RequestKey('stack', 'join-1'), async (ops, payonceTx) => {
          own = await ops.joinedIds();
          viaPayonce = (
            await sql<{ order_id: string; customer_id: string }>`
            select o.id as order_id, c.id as customer_id from stack_orders o
            join stack_customers c on c.id = o.customer_id order by o.id`.execute(payonceTx)
          ).rows;
        });
        expect(own).toEqual([
          { orderId: 'ord_1', customerId: 'cust_2' },
          { orderId: 'ord_2', customerId: 'cust_1' },
        ]);
        expect(viaPayonce).toEqual([
          { order_id: 'ord_1', customer_id: 'cust_2' },
          { order_id: 'ord_2', customer_id: 'cust_1' },
        ]);
      });

      it('answers REQUEST_IN_PROGRESS at once to a duplicate while a committed claim runs, never waiting in the transaction', async () => {
        const waiting = new IdempotencyGuard(store, { waitForInFlightMs: 20_000 });
        const key = new RequestKey('stack', 'in-flight-1');
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let claimed = () => {};
        const running = new Promise<void>((resolve) => {
          claimed = resolve;
        });
        const first = waiting.run(key, async () => {
          claimed();
          await held;
        });
        await running;
        // Were the copy to wait (the guard's 20 s), it would watch the receipt: the first then finishes and the copy
        // replays instead of answering 409 — so the test fails if the joined mode ever waits.
        // The watch is set on the store object itself (every dialect; an own property over PostgreSQL's LISTEN).
        const watchable = store as unknown as { watchReceipt?: () => Promise<unknown> };
        let watched = 0;
        watchable.watchReceipt = async () => {
          watched += 1;
          release();
          await first;
          return { changed: Promise.resolve(), close: () => {} };
        };
        try {
          await expect(adapter.deliver(waiting, key, async () => {})).rejects.toMatchObject({
            code: 'REQUEST_IN_PROGRESS',
          });
          expect(watched).toBe(0);
        } finally {
          delete watchable.watchReceipt;
          release();
          await first;
        }
        expect((await adapter.deliver(waiting, key, async () => {})).isReplay).toBe(true);
      });

      it("hands the handler the stack's own transaction object", async () => {
        let own = false;
        await adapter.deliver(guard, new RequestKey('stack', 'own-1'), async (ops) => {
          own = ops.isOwn;
        });
        expect(own).toBe(true);
      });

      it('leaves all or none when the process is killed with SIGKILL (one delivery committed, one before its commit)', async () => {
        const [committedId, hangingId] = ['kill-after-commit', 'kill-before-commit'];
        // Under tsx, not tsChildArgs: a bundle would load every adapter's packages; tsx loads only this adapter's.
        const child: ChildProcess = spawn(
          process.execPath,
          ['--import', 'tsx', CHILD, adapterName, JSON.stringify(target), committedId, hangingId],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        await new Promise<void>((resolve, reject) => {
          let out = '';
          child.stdout?.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.includes('committed\nin-handler')) resolve();
          });
          child.on('exit', (code) => reject(new Error(`child exited with ${code} before "in-handler":\n${out}`)));
        });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
        // What committed stays whole.
        expect(await traces(committedId)).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
        // The server rolls the dead connection's transaction back: nothing is left; the next delivery claims and
        // commits once.
        expect(await traces(hangingId)).toEqual({ receipt: null, effects: 0, jobs: 0 });
        const outcome = await deliver(hangingId);
        expect(outcome.isReplay).toBe(false);
        expect(await traces(hangingId)).toEqual({ receipt: 'completed', effects: 1, jobs: 1 });
      });
    });
  }
}
