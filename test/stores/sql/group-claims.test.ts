import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailable } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import type { InsertClaimRequest } from '../../../packages/payonce/src/core/store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { writeBeforeCommit } from '../../../packages/payonce/src/stores/sql/before-commit.js';
import { GroupCommit } from '../../../packages/payonce/src/stores/sql/group-commit.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../../outbox/sql-backends.js';
import { sentStatements } from '../../payments/payments-fixtures.js';
import { gated } from './support/group-gate.js';

// Issue 40: the receipts of a group transaction's callers are claimed in ONE statement before they run and completed
// with the batch's deferred writes just before its commit (PostgreSQL). What a caller sees is what it saw with a
// claim and a completion of its own: a fresh key runs its handler once, a failed handler leaves no receipt behind,
// a key repeated in the batch replays the first one's answer.

const BASE = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const textOf = (query: unknown): string =>
  typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text);

describe.skipIf(!sqlDialectsFromEnv().includes('postgres'))(
  'postgres: receipts claimed together in a group commit',
  () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let guard: IdempotencyGuard<SqlStore<unknown>>;
    let serial = 0;
    beforeAll(async () => {
      backend = await createSqlBackend('postgres');
      store = await backend.open();
      guard = new IdempotencyGuard(store);
      await sql`create table gcc_rows (k varchar(80) not null)`.execute(store.db);
      await sql`create table gcc_unique (k varchar(80) primary key)`.execute(store.db);
      await sql`insert into gcc_unique (k) values ('taken')`.execute(store.db);
    }, 60_000);
    afterAll(async () => {
      await backend?.drop();
    });

    const fresh = (label: string) => {
      serial += 1;
      return new RequestKey('gcc', `${label}-${serial}-${process.pid}`);
    };
    const claimOf = (key: RequestKey): InsertClaimRequest => ({ key, nowMs: Date.now(), fingerprint: null });
    const rows = async (k: string) =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from gcc_rows where k = ${k}`.execute(store.db)).rows[0]?.n,
      );
    const receipt = (key: RequestKey) => store.find(key);

    /** The guarded work of `key`: its handler (counted in `runs`) runs `body`, then answers with the key's id. */
    const handledBy =
      (key: RequestKey, runs: Map<string, number>, body: (inTx: Transaction<unknown>) => Promise<void>) =>
      (tx: Transaction<unknown>) =>
        guard.runInTransaction(
          tx as never,
          key,
          async (inTx) => {
            runs.set(key.externalId, (runs.get(key.externalId) ?? 0) + 1);
            await body(inTx as Transaction<unknown>);
            return { status: 200, body: key.externalId };
          },
          { waitForInFlightMs: 0 },
        );
    const businessRow = (key: RequestKey) => sql`insert into gcc_rows (k) values (${key.externalId})`;

    /** The guarded work of `key`: its business row, then `fail` (throw after the row) or an answer naming it. */
    const guarded = (key: RequestKey, runs: Map<string, number>, fail = false) =>
      handledBy(key, runs, async (inTx) => {
        await businessRow(key).execute(inTx);
        if (fail) throw new Error(`${key.externalId} failed after its write`);
      });

    /** Runs `calls` as ONE batch: a gate caller holds the only transaction slot until all of them queued. */
    async function inOneBatch<T>(group: GroupCommit<unknown>, calls: (() => Promise<T>)[]) {
      const open = await gated(group);
      const spy = vi.spyOn(pg.Client.prototype, 'query');
      try {
        const answers = Promise.allSettled(calls.map((call) => call()));
        await open();
        const settledAnswers = await answers;
        return { answers: settledAnswers, texts: spy.mock.calls.map(([first]) => textOf(first as unknown)) };
      } finally {
        spy.mockRestore();
      }
    }

    it('claims the batch in one statement, runs each handler once and completes every receipt at the commit', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const keys = Array.from({ length: 5 }, (_, i) => fresh(`batch${i}`));
      const runs = new Map<string, number>();
      const { answers, texts } = await inOneBatch(
        group,
        keys.map((key) => () => group.run(guarded(key, runs), claimOf(key))),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill('fulfilled'));
      for (const [i, answer] of answers.entries()) {
        const outcome = (answer as PromiseFulfilledResult<{ isReplay: boolean; response: { body: Uint8Array } }>).value;
        expect(outcome.isReplay).toBe(false);
        expect(new TextDecoder().decode(outcome.response.body)).toBe(keys[i]!.externalId);
      }
      // One multi-row claim, no single-row claim; no completion before the end, then all five in one statement.
      const receiptWrites = texts.filter((text) => /payonce_receipts/.test(text) && !/^select/i.test(text.trim()));
      expect(receiptWrites.filter((text) => /^insert into/i.test(text.trim()))).toHaveLength(1);
      expect(receiptWrites.filter((text) => /unnest/.test(text))).toHaveLength(1);
      // No work failed: no savepoint either (one is taken per work only when the batch runs again after a failure).
      expect(texts.filter((text) => /savepoint/i.test(text))).toEqual([]);
      const completions = receiptWrites.filter((text) => /^with w0 as \(update "payonce_receipts"/.test(text));
      expect(completions).toHaveLength(1);
      expect(completions[0]!.match(/update "payonce_receipts"/g)).toHaveLength(5);
      for (const key of keys) {
        expect(runs.get(key.externalId)).toBe(1);
        expect(await rows(key.externalId)).toBe(1);
        expect(await receipt(key)).toMatchObject({ status: 'completed', attempts: 1 });
      }
    });

    it('a handler that fails leaves no receipt and no row; its next delivery runs it; the others commit', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const keys = Array.from({ length: 4 }, (_, i) => fresh(`fail${i}`));
      const runs = new Map<string, number>();
      const { answers } = await inOneBatch(
        group,
        keys.map((key, i) => () => group.run(guarded(key, runs, i === 1), claimOf(key))),
      );
      expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const failed = keys[1]!;
      expect([await receipt(failed), await rows(failed.externalId)]).toEqual([null, 0]);
      for (const key of [keys[0]!, keys[2]!, keys[3]!]) {
        expect(await receipt(key)).toMatchObject({ status: 'completed' });
        expect(await rows(key.externalId)).toBe(1);
      }
      // The batch ran without savepoints up to the failure, rolled back, then again with one per work.
      expect(keys.map((key) => runs.get(key.externalId))).toEqual([2, 2, 1, 1]);
      const again = await group.run(guarded(failed, runs), claimOf(failed));
      expect(again.isReplay).toBe(false);
      expect([runs.get(failed.externalId), await rows(failed.externalId)]).toEqual([3, 1]);
    });

    it('a key repeated in the batch runs once; the repeat replays the stored answer after the commit', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const [a, b] = [fresh('twice'), fresh('once')];
      const runs = new Map<string, number>();
      const { answers } = await inOneBatch(
        group,
        [a, b, a].map((key) => () => group.run(guarded(key, runs), claimOf(key))),
      );
      const outcomes = answers.map(
        (answer) => (answer as PromiseFulfilledResult<{ isReplay: boolean; response: { body: Uint8Array } }>).value,
      );
      expect(outcomes.map((outcome) => outcome.isReplay)).toEqual([false, false, true]);
      expect(new TextDecoder().decode(outcomes[2]!.response.body)).toBe(a.externalId);
      expect([runs.get(a.externalId), await rows(a.externalId)]).toEqual([1, 1]);
    });

    it('a key already completed is answered from the batch claim as a replay, with no handler run', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const runs = new Map<string, number>();
      const done = fresh('done');
      await group.run(guarded(done, runs), claimOf(done));
      const other = fresh('other');
      const { answers } = await inOneBatch(
        group,
        [done, other].map((key) => () => group.run(guarded(key, runs), claimOf(key))),
      );
      const outcomes = answers.map((answer) => (answer as PromiseFulfilledResult<{ isReplay: boolean }>).value);
      expect(outcomes.map((outcome) => outcome.isReplay)).toEqual([true, false]);
      expect([runs.get(done.externalId), runs.get(other.externalId)]).toEqual([1, 1]);
    });

    it('a work that never claims its key leaves no claim row behind', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const [unclaimed, claimed] = [fresh('unclaimed'), fresh('claimed')];
      const runs = new Map<string, number>();
      const { answers } = await inOneBatch<unknown>(group, [
        () => group.run(async () => 'did something else', claimOf(unclaimed)),
        () => group.run(guarded(claimed, runs), claimOf(claimed)),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(await receipt(unclaimed)).toBeNull();
      expect(await receipt(claimed)).toMatchObject({ status: 'completed' });
    });

    it('a completion that finds its row gone fails only its own caller; the others run again alone and commit', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const keys = [fresh('gone-a'), fresh('gone-b'), fresh('gone-c')];
      const runs = new Map<string, number>();
      // b's work deletes its own receipt after the guard completed it: the deferred completion touches no row.
      const removing = (key: RequestKey) => async (tx: Transaction<unknown>) => {
        const outcome = await guarded(key, runs)(tx);
        await sql`delete from payonce_receipts where provider = ${key.provider} and external_id = ${key.externalId}`.execute(
          tx,
        );
        return outcome;
      };
      const { answers } = await inOneBatch(
        group,
        keys.map((key, i) => () => group.run(i === 1 ? removing(key) : guarded(key, runs), claimOf(key))),
      );
      expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      for (const key of [keys[0]!, keys[2]!]) {
        expect(await receipt(key)).toMatchObject({ status: 'completed', attempts: 1 });
        expect(await rows(key.externalId)).toBe(1); // its first run was rolled back with the batch
        expect(runs.get(key.externalId)).toBe(2);
      }
    });
    /** `guarded`, with its business row left for the commit (`writeBeforeCommit`, as a delivery's journal row is). */
    const deferring = (key: RequestKey, runs: Map<string, number>) =>
      handledBy(key, runs, (inTx) => writeBeforeCommit(inTx, businessRow(key).compile(inTx)));

    it('a caller alone in its batch claims as a batch does: its completion goes with its deferred write in one statement', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const key = fresh('alone');
      const runs = new Map<string, number>();
      const { result: answer, texts } = await sentStatements(() => group.run(deferring(key, runs), claimOf(key)));
      expect(answer.isReplay).toBe(false);
      // BEGIN, the claim, the completion with the business row, COMMIT: four statements, not five.
      expect(texts.map((text) => text.trim().split(/\s+/)[0]!.toLowerCase())).toEqual([
        'begin',
        'insert',
        'with',
        'commit',
      ]);
      expect(texts[1]).toMatch(/unnest/);
      expect(texts[2]).toMatch(/update "payonce_receipts"/);
      expect(texts[2]).toMatch(/insert into gcc_rows/);
      expect(await receipt(key)).toMatchObject({ status: 'completed', attempts: 1 });
      expect([runs.get(key.externalId), await rows(key.externalId)]).toEqual([1, 1]);
      // Delivered again: answered from the stored receipt, the handler not run.
      const again = await group.run(deferring(key, runs), claimOf(key));
      expect(again.isReplay).toBe(true);
      expect([runs.get(key.externalId), await rows(key.externalId)]).toEqual([1, 1]);
    });

    it('alone: a handler that fails leaves no receipt and no row, and a work that never claims leaves no claim row', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const [failing, unclaimed] = [fresh('alone-fail'), fresh('alone-unclaimed')];
      const runs = new Map<string, number>();
      await expect(group.run(guarded(failing, runs, true), claimOf(failing))).rejects.toThrow('failed after its write');
      expect([await receipt(failing), await rows(failing.externalId)]).toEqual([null, 0]);
      const redelivered = await group.run(guarded(failing, runs), claimOf(failing));
      expect(redelivered.isReplay).toBe(false);
      expect([runs.get(failing.externalId), await rows(failing.externalId)]).toEqual([2, 1]);
      expect(await group.run(async () => 'did something else', claimOf(unclaimed))).toBe('did something else');
      expect(await receipt(unclaimed)).toBeNull();
    });

    it("alone: when its claim made as a batch's fails, it runs again with the guard's own claim", async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const key = fresh('alone-refused');
      const runs = new Map<string, number>();
      const refused = vi.spyOn(store, 'claimTogether').mockRejectedValueOnce(new Error('claims refused'));
      try {
        const answer = await group.run(guarded(key, runs), claimOf(key));
        expect(answer.isReplay).toBe(false);
        expect(refused).toHaveBeenCalledTimes(1); // the run again claims as the guard does, not together
      } finally {
        refused.mockRestore();
      }
      expect(await receipt(key)).toMatchObject({ status: 'completed', attempts: 1 });
      expect([runs.get(key.externalId), await rows(key.externalId)]).toEqual([1, 1]);
    });

    it('alone: a handler that changes its own receipt gets ClaimLost, as without group commit; nothing commits', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const key = fresh('alone-bumped');
      const runs = new Map<string, number>();
      const bumping = handledBy(key, runs, async (inTx) => {
        await businessRow(key).execute(inTx);
        await sql`update payonce_receipts set attempts = attempts + 1 where provider = ${key.provider} and external_id = ${key.externalId}`.execute(
          inTx,
        );
      });
      await expect(group.run(bumping, claimOf(key))).rejects.toMatchObject({ code: 'CLAIM_LOST' });
      // Its end write found its completion touching no row: the transaction rolled back, and it ran again with the
      // guard's own claim and completion, which reported the loss.
      expect(runs.get(key.externalId)).toBe(2);
      expect([await receipt(key), await rows(key.externalId)]).toEqual([null, 0]);
    });

    it('alone: a claim blocked past the statement timeout is answered StoreUnavailable at once, not claimed again', async () => {
      const timed = await PostgresStore.connect<unknown>({
        connectionString: BASE,
        options: `-c search_path=${backend.target} -c statement_timeout=300`,
        max: 2,
      });
      const holder = new pg.Client({ connectionString: BASE, options: `-c search_path=${backend.target}` });
      await holder.connect();
      const key = fresh('alone-blocked');
      try {
        // Another delivery of the key claimed it in a transaction still open: this claim waits on its row.
        await holder.query('begin');
        await holder.query(
          `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
           values ($1, $2, 'processing', 1, $3, $3)`,
          [key.provider, key.externalId, Date.now()],
        );
        const group = new GroupCommit(timed, { maxConcurrentBatches: 1 });
        const timedGuard = new IdempotencyGuard(timed);
        let runs = 0;
        const work = (tx: Transaction<unknown>) =>
          timedGuard.runInTransaction(
            tx as never,
            key,
            async () => {
              runs += 1;
              return { status: 200 };
            },
            { waitForInFlightMs: 0 },
          );
        const { result: answer, texts } = await sentStatements(() =>
          group.run(work, claimOf(key)).then(
            () => null,
            (error: unknown) => error,
          ),
        );
        expect(answer).toBeInstanceOf(StoreUnavailable);
        expect((answer as Error).message).toMatch(/^store failed during claim: canceling statement/);
        expect(texts.filter((text) => /^insert into/i.test(text.trim()))).toHaveLength(1);
        expect(runs).toBe(0);
      } finally {
        await holder.query('rollback').catch(() => {});
        await holder.end();
        await timed.close();
      }
    });

    /** A handler that inserts a row the database refuses and catches the error, as "already done" (PostgreSQL: the
     * transaction is aborted from then on, which the handler does not see). */
    const swallowing = (key: RequestKey, runs: Map<string, number>) =>
      handledBy(key, runs, async (inTx) => {
        try {
          await sql`insert into gcc_unique (k) values ('taken')`.execute(inTx);
        } catch {
          // treated as done: but the transaction is aborted now
        }
      });

    for (const position of [0, 1, 2]) {
      it(`a handler that swallows a failed statement (position ${position + 1} of 3) fails alone; the others commit`, async () => {
        const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
        const keys = [0, 1, 2].map((i) => fresh(`swallow${position}-${i}`));
        const runs = new Map<string, number>();
        const { answers } = await inOneBatch<unknown>(
          group,
          keys.map(
            (key, i) => () => group.run(i === position ? swallowing(key, runs) : guarded(key, runs), claimOf(key)),
          ),
        );
        // Its own completion fails when it runs alone (the aborted transaction refuses it): only it is refused.
        expect(answers.map((answer) => answer.status)).toEqual(
          keys.map((_, i) => (i === position ? 'rejected' : 'fulfilled')),
        );
        for (const [i, key] of keys.entries()) {
          if (i === position) expect(await receipt(key)).toBeNull();
          else {
            expect(await receipt(key)).toMatchObject({ status: 'completed' });
            expect(await rows(key.externalId)).toBe(1);
          }
        }
      });
    }

    it('a batch with nothing left for its end is checked before its COMMIT, which would roll an aborted one back silently', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const [a, b] = [fresh('probe-a'), fresh('probe-b')];
      const plain = (k: string, swallow: boolean) => async (tx: Transaction<unknown>) => {
        await sql`insert into gcc_rows (k) values (${k})`.execute(tx);
        if (swallow) {
          try {
            await sql`insert into gcc_unique (k) values ('taken')`.execute(tx);
          } catch {
            // swallowed: the transaction is aborted
          }
        }
        return k;
      };
      const { answers } = await inOneBatch<unknown>(group, [
        () => group.run(plain(a.externalId, false)),
        () => group.run(plain(b.externalId, true)),
      ]);
      expect(answers[0]).toEqual({ status: 'fulfilled', value: a.externalId });
      // Answered means committed: a's row is there (it ran again alone after the check found the batch aborted).
      expect(await rows(a.externalId)).toBe(1);
    });
  },
);
