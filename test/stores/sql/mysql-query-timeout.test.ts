import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { createMysqlNamespace } from '../../contract/backends/mysql.js';
import { cleanupAfterEach, silentDatabase } from '../../service/silent-database.js';

const TIMEOUT_MS = 500;

/** A store on a fresh MariaDB database reached through a proxy that can go silent mid-statement, one connection. */
async function storeBehindProxy(defer: (cleanup: () => Promise<void>) => void) {
  const ns = await createMysqlNamespace();
  defer(() => ns.drop());
  const target = new URL(ns.url);
  target.port ||= '3306';
  const database = await silentDatabase(target);
  defer(database.close);
  database.answer();
  const store = await MysqlStore.connect({
    uri: database.url(ns.url),
    connectionLimit: 1,
    connectTimeout: TIMEOUT_MS,
    queryTimeoutMs: TIMEOUT_MS,
  });
  defer(() => store.close());
  await store.migrate();
  const direct = await MysqlStore.connect(ns.url);
  defer(() => direct.close());
  return { store, direct, database };
}

/** `read()`'s first success within 20 s of tries (each try is itself bounded by the store). */
async function eventually<T>(read: () => Promise<T>): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (Date.now() > until) throw error;
    }
  }
}

describe('MysqlStore queryTimeoutMs: a connection that freezes mid-statement (issue 34 item 17)', () => {
  const defer = cleanupAfterEach();

  it('fails the statement within the bound, destroys its connection and serves again once the database answers', async () => {
    const { store, database } = await storeBehindProxy(defer);
    const key = (id: string) => new RequestKey('stripe', id);
    expect((await store.insertClaim({ key: key('before'), nowMs: 1, fingerprint: null })).inserted).toBe(true);

    database.freeze();
    // The store's own statement path and the Kysely path both give up (never hang).
    await expect(store.find(key('before'))).rejects.toMatchObject({ code: 'PROTOCOL_SEQUENCE_TIMEOUT', fatal: true });
    await expect(sql`select 1`.execute(store.db)).rejects.toMatchObject({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' });

    // A pool of one: had the frozen connection been kept (or leaked), nothing could be served after this.
    database.answer();
    // A connection opened while the proxy was silent fails by connectTimeout; the next one is served.
    expect((await eventually(() => store.find(key('before'))))?.status).toBe('processing');
    expect((await sql<{ n: number }>`select 1 as n`.execute(store.db)).rows[0]?.n).toBe(1);
  }, 60_000);

  it('leaves nothing of a transaction whose connection froze half-way', async () => {
    const { store, direct, database } = await storeBehindProxy(defer);
    await sql`create table t_half (id int primary key)`.execute(direct.db);
    const work = store.transaction(async (tx) => {
      await sql`insert into t_half (id) values (1)`.execute(tx);
      database.freeze();
      await sql`insert into t_half (id) values (2)`.execute(tx);
    });
    // The statement times out; Kysely's rollback then finds the connection destroyed: either error is fatal.
    await expect(work).rejects.toMatchObject({ fatal: true });
    database.answer();
    // The first row was never committed: the connection was destroyed, not returned to the pool with it open.
    expect((await sql<{ n: number }>`select count(*) as n from t_half`.execute(direct.db)).rows[0]?.n).toBe(0);
    await sql`insert into t_half (id) values (3)`.execute(store.db);
    expect(
      (await sql<{ n: number }>`select count(*) as n from t_half`.execute(direct.db)).rows.map((r) => Number(r.n)),
    ).toEqual([1]);
  }, 60_000);

  it('refuses a queryTimeoutMs that is not a positive integer', async () => {
    await expect(MysqlStore.connect({ uri: 'mysql://127.0.0.1/x', queryTimeoutMs: 0 })).rejects.toThrow(InvalidOption);
  });
});
