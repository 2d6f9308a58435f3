import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProviderCallTransaction } from '../../packages/payonce/src/providers/provider-call-transaction.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';

class RaceLost extends Error {}
const retry = { attempts: 3, raceLost: (error: unknown) => error instanceof RaceLost };
/** What each driver reports for a deadlock victim / a busy database (the dialects' transient errors). */
const TRANSIENT: Record<string, object> = {
  sqlite: { code: 'SQLITE_BUSY' },
  postgres: { code: '40P01' },
  mysql: { errno: 1213, code: 'ER_LOCK_DEADLOCK' },
};

// A provider call (Payme method, Click Prepare/Complete, Uzum webhook) is one transaction, run again whole after a
// lost race or a deadlock: MariaDB picks deadlock victims among concurrent Prepares of three replicas.
for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`inProviderCallTransaction on ${dialect}`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await sql`create table call_marks (n integer not null)`.execute(store.db);
    });
    afterAll(async () => backend?.drop());
    const marks = async () =>
      Number((await sql<{ c: number }>`select count(*) as c from call_marks`.execute(store.db)).rows[0]?.c);

    it('runs a deadlock victim or a lost race again in a new transaction; the failed run leaves nothing', async () => {
      const before = await marks();
      const failures = [Object.assign(new Error('deadlock'), TRANSIENT[dialect]), new RaceLost('race')];
      let runs = 0;
      const answer = await inProviderCallTransaction(store, retry, async (trx) => {
        runs += 1;
        await sql`insert into call_marks (n) values (${runs})`.execute(trx);
        const failure = failures.shift();
        if (failure) throw failure;
        return 'answered';
      });
      expect(answer).toBe('answered');
      expect(runs).toBe(3);
      expect(await marks()).toBe(before + 1);
    });

    it('throws any other error at once, and a transient one after the last attempt', async () => {
      let runs = 0;
      const other = inProviderCallTransaction(store, retry, async () => {
        runs += 1;
        throw new Error('not transient');
      });
      await expect(other).rejects.toThrow('not transient');
      expect(runs).toBe(1);
      // SQLite's stores retry a busy database for seconds per transaction: the exhausted case is checked elsewhere.
      if (dialect === 'sqlite') return;
      runs = 0;
      const always = inProviderCallTransaction(store, retry, async () => {
        runs += 1;
        throw Object.assign(new Error('deadlock again'), TRANSIENT[dialect]);
      });
      await expect(always).rejects.toThrow('deadlock again');
      // Each attempt is a transaction that itself retries a few times (the stores' back-off), then the call again.
      expect(runs).toBeGreaterThanOrEqual(retry.attempts);
    });
  });
}

// Two calls that each look for a new id (a locking read of a row that is not there, above every id in the index) and
// then insert it: at InnoDB's REPEATABLE READ both take the gap lock up to the index's end and their inserts
// deadlock; a provider call runs at READ COMMITTED on MySQL/MariaDB, where neither read locks a gap.
describe('inProviderCallTransaction on mysql: a locking read of a missing id locks no gap', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('mysql');
    store = await backend.open();
    await sql`create table call_ids (id bigint not null primary key)`.execute(store.db);
    await sql`insert into call_ids (id) values (10)`.execute(store.db);
  });
  afterAll(async () => backend?.drop());

  it('two concurrent calls both read past the last id, then insert: no deadlock, each runs once', async () => {
    let read = 0;
    let bothRead: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothRead = resolve;
    });
    const runs: [number, number] = [0, 0];
    const call = (which: 0 | 1, id: number) =>
      inProviderCallTransaction(store, { attempts: 1, raceLost: () => false }, async (trx) => {
        runs[which] += 1;
        await sql`select id from call_ids where id = ${id} for update`.execute(trx);
        read += 1;
        if (read === 2) bothRead();
        await barrier;
        await sql`insert into call_ids (id) values (${id})`.execute(trx);
        return id;
      });
    expect(await Promise.all([call(0, 1001), call(1, 1002)])).toEqual([1001, 1002]);
    expect(runs).toEqual([1, 1]);
  });
});
