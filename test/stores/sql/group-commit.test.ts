import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { writeBeforeCommit } from '../../../packages/payonce/src/stores/sql/before-commit.js';
import { GroupCommit } from '../../../packages/payonce/src/stores/sql/group-commit.js';
import { resolveGroupCommit } from '../../../packages/payonce/src/stores/sql/group-commit-options.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../../outbox/sql-backends.js';
import { gated, settled } from './support/group-gate.js';

// The group commit's own rules (issue 40), below the intake: a transient error inside one caller's savepoint runs
// that caller again alone and answers it; invalid options are refused. The intake's behaviour through it:
// test/webhooks/group-commit.test.ts.

/** A driver error of PostgreSQL's deadlock (SQLSTATE 40P01) or SQLite's busy code, as the dialects classify them. */
function transientError(dialect: string): Error {
  return Object.assign(new Error('simulated transient error'), {
    code: dialect === 'postgres' ? '40P01' : 'SQLITE_BUSY',
  });
}

for (const dialect of ['postgres', 'sqlite'] as const) {
  describe(`${dialect}: GroupCommit`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await sql`create table gc_rows (k varchar(40) not null)`.execute(store.db);
      await sql`create table gc_late (k varchar(40) not null check (k not like '%refused%'))`.execute(store.db);
    }, 60_000);
    afterAll(async () => {
      await backend?.drop();
    });

    const rows = async (k: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from gc_rows where k = ${k}`.execute(store.db)).rows[0]?.n);

    it('a transient error inside one savepoint runs that work again alone; every caller gets its own result', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const open = await gated(group);
      const runs = new Map<string, number>();
      // b fails in the batch's first run (no savepoints: the batch is rolled back whole) and again in its second
      // (a savepoint each: only b's is rolled back), then runs alone.
      const work = (k: string, failTwice: boolean) => async (tx: Parameters<Parameters<typeof group.run>[0]>[0]) => {
        const n = (runs.get(k) ?? 0) + 1;
        runs.set(k, n);
        await sql`insert into gc_rows (k) values (${k})`.execute(tx);
        if (failTwice && n <= 2) throw transientError(dialect);
        return `${k}:${n}`;
      };
      const answers = Promise.all([
        group.run(work(`${dialect}-a`, false)),
        group.run(work(`${dialect}-b`, true)),
        group.run(work(`${dialect}-c`, false)),
      ]);
      await open();
      expect(await answers).toEqual([`${dialect}-a:2`, `${dialect}-b:3`, `${dialect}-c:1`]);
      // b's second run was rolled back to its savepoint; its third run committed alone.
      expect([await rows(`${dialect}-a`), await rows(`${dialect}-b`), await rows(`${dialect}-c`)]).toEqual([1, 1, 1]);
    });

    const late = async (k: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from gc_late where k = ${k}`.execute(store.db)).rows[0]?.n);
    const lateRow = (k: string) =>
      CompiledQuery.raw(`insert into gc_late (k) values (${dialect === 'postgres' ? '$1' : '?'})`, [k]);

    it('writes the rows callers left for the end at the commit, except those of a caller whose work failed', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const open = await gated(group);
      const work = (k: string, fail: boolean) => async (tx: Parameters<Parameters<typeof group.run>[0]>[0]) => {
        await sql`insert into gc_rows (k) values (${k})`.execute(tx);
        await writeBeforeCommit(tx, lateRow(k));
        // Not written yet, even as the transaction sees it: it waits for the batch's end.
        const seen = await sql<{ n: number }>`select count(*) as n from gc_late where k = ${k}`.execute(tx);
        expect(Number(seen.rows[0]?.n)).toBe(0);
        if (fail) throw new Error(`${k} failed`);
        return k;
      };
      const answers = Promise.allSettled([
        group.run(work(`${dialect}-late-a`, false)),
        group.run(work(`${dialect}-late-b`, true)),
        group.run(work(`${dialect}-late-c`, false)),
      ]);
      await open();
      const [a, b, c] = await answers;
      expect([a?.status, b?.status, c?.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const counts = async (k: string) => [await rows(k), await late(k)];
      expect(await counts(`${dialect}-late-a`)).toEqual([1, 1]);
      expect(await counts(`${dialect}-late-b`)).toEqual([0, 0]);
      expect(await counts(`${dialect}-late-c`)).toEqual([1, 1]);
    });

    it('a row refused at the end fails only its own caller: the others run again alone and commit', async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const open = await gated(group);
      const runs = new Map<string, number>();
      const work = (k: string) => async (tx: Parameters<Parameters<typeof group.run>[0]>[0]) => {
        runs.set(k, (runs.get(k) ?? 0) + 1);
        await sql`insert into gc_rows (k) values (${k})`.execute(tx);
        await writeBeforeCommit(tx, lateRow(k));
        return k;
      };
      const keys = [`${dialect}-end-a`, `${dialect}-end-refused`, `${dialect}-end-c`];
      const answers = Promise.allSettled(keys.map((k) => group.run(work(k))));
      await open();
      const settledAnswers = await answers;
      expect(settledAnswers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      for (const [i, k] of keys.entries()) {
        const committed = i === 1 ? 0 : 1;
        expect([await rows(k), await late(k)]).toEqual([committed, committed]);
        expect(runs.get(k)).toBe(2); // once in the batch (rolled back whole), once alone
      }
    });

    it("runs each work in its own caller's async context, not the context of the caller that started the batch", async () => {
      const group = new GroupCommit(store, { maxConcurrentBatches: 1 });
      const caller = new AsyncLocalStorage<string>();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const atGate = new Promise<void>((resolve) => (reached = resolve));
      const gate = caller.run('gate', () =>
        group.run(async () => {
          reached();
          await held;
          return caller.getStore();
        }),
      );
      await atGate;
      const seen = Promise.all(
        ['first', 'second', 'third'].map((name) => caller.run(name, () => group.run(async () => caller.getStore()))),
      );
      await settled();
      release();
      expect(await gate).toBe('gate');
      expect(await seen).toEqual(['first', 'second', 'third']);
    });
  });
}

it('refuses group commit options out of range or unknown', () => {
  const postgres = { name: 'postgres' } as Parameters<typeof resolveGroupCommit>[1];
  expect(resolveGroupCommit(true, postgres)).toEqual({ maxBatchSize: 16, maxConcurrentBatches: 10 });
  expect(resolveGroupCommit(true, { name: 'sqlite' } as typeof postgres).maxConcurrentBatches).toBe(1);
  expect(() => resolveGroupCommit({ maxBatchSize: 65 }, postgres)).toThrow(InvalidOption);
  expect(() => resolveGroupCommit({ maxBatchSize: 0 }, postgres)).toThrow(InvalidOption);
  expect(() => resolveGroupCommit({ batch: 2 }, postgres)).toThrow(/groupCommit\.batch/);
  expect(() => resolveGroupCommit('yes', postgres)).toThrow(InvalidOption);
});
