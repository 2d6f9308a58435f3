import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption, StoreUnavailable } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../../packages/payonce/src/core/store.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../contract/backends/mysql.js';
import { createPostgresNamespace, type PostgresNamespace } from '../../contract/backends/postgres.js';
import { createSqliteNamespace, type SqliteNamespace } from '../../contract/backends/sqlite.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

const T0 = 1_767_225_600_123; // beyond 2^31: BIGINT columns must come back as exact numbers
const response = { status: 200, headers: { 'content-type': 'text/plain' }, body: new Uint8Array([0xff, 0x00, 0x80]) };
const keyOf = (label: string) => new RequestKey('sql', `${label}-${randomUUID()}`);

/** claim → fenced takeover race → complete, checking every compare-and-set's answer. */
async function compareAndSetLifecycle(store: Store): Promise<void> {
  const key = keyOf('cas');
  const claim = await store.insertClaim({ key, nowMs: T0, fingerprint: 'f1' });
  expect(claim.inserted).toBe(true);
  expect(await store.fail({ key, attempt: 1, nowMs: T0 + 1, error: 'boom' })).toBe(true);
  expect(await store.fail({ key, attempt: 1, nowMs: T0 + 2, error: 'again' })).toBe(false);
  const taken = await store.takeover({ key, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 3 });
  expect(taken).toMatchObject({ status: 'processing', attempts: 2, claimedAtMs: T0 + 3, fingerprint: 'f1' });
  expect(await store.takeover({ key, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 4 })).toBeNull();
  expect(await store.complete({ key, attempt: 1, nowMs: T0 + 5, response })).toBe(false);
  expect(await store.complete({ key, attempt: 2, nowMs: T0 + 6, response })).toBe(true);
  expect(await store.complete({ key, attempt: 2, nowMs: T0 + 7, response })).toBe(false);
  expect(await store.takeover({ key, expectedStatus: 'processing', expectedAttempts: 2, nowMs: T0 + 8 })).toBeNull();
  const stored = await store.find(key);
  expect(stored).toMatchObject({ status: 'completed', attempts: 2, claimedAtMs: T0 + 3, finishedAtMs: T0 + 6 });
  expect(stored?.response?.body).toEqual(response.body);
}

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: SQL store details`, () => {
    let ns: SqlNamespace;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      ns = await sqlNamespaces[dialect]();
      store = await ns.open();
      await store.migrate();
    });
    afterAll(async () => {
      await ns?.drop();
    });

    it('keeps byte-distinct keys distinct (case, trailing space, Unicode normalisation) and reads them back', async () => {
      const base = `k-${randomUUID()}`;
      const ids = [base, `${base} `, base.toUpperCase(), `${base}-\u00e9`, `${base}-e\u0301`, `${base}-😀`];
      for (const [i, id] of ids.entries()) {
        const claimed = await store.insertClaim({ key: new RequestKey('bytes', id), nowMs: T0, fingerprint: `f${i}` });
        expect(claimed.inserted).toBe(true);
      }
      for (const [i, id] of ids.entries()) {
        const found = await store.find(new RequestKey('bytes', id));
        expect(found?.key.externalId).toBe(id);
        expect(found?.key.provider).toBe('bytes');
        expect(found?.fingerprint).toBe(`f${i}`);
      }
    });

    it('returns BIGINT times as exact numbers and the stored fingerprint', async () => {
      const key = keyOf('times');
      await store.insertClaim({ key, nowMs: T0, fingerprint: null });
      const found = await store.find(key);
      expect(found).toMatchObject({ status: 'processing', attempts: 1, claimedAtMs: T0, finishedAtMs: null });
      expect(typeof found?.claimedAtMs).toBe('number');
      expect(found?.fingerprint).toBeNull();
    });

    it('stores error text and response headers larger than 64 KB unchanged', async () => {
      const failing = keyOf('big-error');
      const error = 'é'.repeat(40_000); // 80 000 UTF-8 bytes
      await store.insertClaim({ key: failing, nowMs: T0, fingerprint: null });
      expect(await store.fail({ key: failing, attempt: 1, nowMs: T0 + 1, error })).toBe(true);
      expect((await store.find(failing))?.error).toBe(error);

      const completing = keyOf('big-headers');
      const headers = { 'x-a': 'a'.repeat(70_000), 'content-type': 'text/plain' };
      await store.insertClaim({ key: completing, nowMs: T0, fingerprint: null });
      expect(
        await store.complete({ key: completing, attempt: 1, nowMs: T0 + 1, response: { ...response, headers } }),
      ).toBe(true);
      const stored = await store.find(completing);
      expect(stored?.response?.headers).toEqual(headers);
      expect(Object.keys(stored?.response?.headers ?? {})).toEqual(['x-a', 'content-type']);
    });

    it('judges takeover, complete and fail by the affected-row count', async () => {
      await compareAndSetLifecycle(store);
    });

    it('rejects a withTransaction argument that is not a Kysely transaction', () => {
      expect(() => store.withTransaction(store.db as never)).toThrow(InvalidOption);
    });
  });
}

describe('mysql: affected rows with and without the FOUND_ROWS client flag', () => {
  let ns: MysqlNamespace;
  const stores: MysqlStore[] = [];
  beforeAll(async () => {
    ns = await createMysqlNamespace();
    stores.push(await MysqlStore.connect(ns.url));
    stores.push(await MysqlStore.connect({ uri: ns.url, flags: ['-FOUND_ROWS'] }));
    await stores[0]!.migrate();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await ns?.drop();
  });

  it('the two clients really count differently: a no-op UPDATE is 1 matched, 0 changed', async () => {
    const key = keyOf('noop');
    await stores[0]!.insertClaim({ key, nowMs: T0, fingerprint: null });
    const noop = (s: MysqlStore) =>
      s.db
        .updateTable('payonce_receipts')
        .set({ status: 'processing' })
        .where('provider', '=', Buffer.from(key.provider))
        .where('external_id', '=', Buffer.from(key.externalId))
        .executeTakeFirst();
    expect((await noop(stores[0]!)).numUpdatedRows).toBe(1n);
    expect((await noop(stores[1]!)).numUpdatedRows).toBe(0n);
  });

  it('mysql2 default flags (affected = matched rows)', async () => {
    await compareAndSetLifecycle(stores[0]!);
  });

  it('-FOUND_ROWS (affected = changed rows)', async () => {
    await compareAndSetLifecycle(stores[1]!);
  });
});

/** Holds SQLite's write lock from another thread for `holdMs`; resolves once the lock is held. */
function holdWriteLock(path: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const Database = require('better-sqlite3');
     const db = new Database(workerData.path);
     db.exec('begin immediate');
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
     db.exec('commit');
     db.close();`,
    { eval: true, workerData: { path, holdMs } },
  );
  const released = new Promise<void>((resolve, reject) => {
    worker.once('exit', () => resolve());
    worker.once('error', reject);
  });
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve({ released }));
    worker.once('error', reject);
  });
}

describe('sqlite: SqliteStore specifics', () => {
  let ns: SqliteNamespace;
  const stores: SqliteStore[] = [];
  const open = async (options = {}) => {
    const store = await SqliteStore.open(ns.path, options);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    ns = await createSqliteNamespace();
    await (await open()).migrate();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await ns?.drop();
  });

  it('opens with WAL, a 20 ms blocking busy_timeout (the 5 000 ms wait is asynchronous) and synchronous=FULL', async () => {
    const store = await open();
    const pragma = async (name: string) => (await sql.raw(`pragma ${name}`).execute(store.db)).rows[0];
    expect(await pragma('journal_mode')).toEqual({ journal_mode: 'wal' });
    expect(await pragma('busy_timeout')).toEqual({ timeout: 20 });
    expect(store.dialect.retryBudgetMs).toBe(5_000);
    expect(await pragma('synchronous')).toEqual({ synchronous: 2 });
    const fast = await open({ unsafeSynchronousNormal: true, busyTimeoutMs: 7000 });
    expect((await sql.raw('pragma synchronous').execute(fast.db)).rows[0]).toEqual({ synchronous: 1 });
    expect((await sql.raw('pragma busy_timeout').execute(fast.db)).rows[0]).toEqual({ timeout: 20 });
    expect(fast.dialect.retryBudgetMs).toBe(7_000);
  });

  it('rejects an empty path and a busy timeout that is not a positive integer', async () => {
    await expect(SqliteStore.open('')).rejects.toBeInstanceOf(InvalidOption);
    await expect(SqliteStore.open(ns.path, { busyTimeoutMs: 0 })).rejects.toBeInstanceOf(InvalidOption);
    await expect(SqliteStore.open(ns.path, { busyTimeoutMs: 1.5 })).rejects.toBeInstanceOf(InvalidOption);
  });

  it('retries SQLITE_BUSY outside a transaction, and never inside the caller’s transaction', async () => {
    const impatient = await open({ busyTimeoutMs: 1 });
    const first = await holdWriteLock(ns.path, 60);
    const claimed = await impatient.insertClaim({ key: keyOf('busy'), nowMs: T0, fingerprint: null });
    expect(claimed.inserted).toBe(true);
    await first.released;

    const second = await holdWriteLock(ns.path, 400);
    const inTransaction = impatient.db
      .transaction()
      .execute((trx) =>
        impatient.withTransaction(trx).insertClaim({ key: keyOf('busy-tx'), nowMs: T0, fingerprint: null }),
      );
    await expect(inTransaction).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) });
    await second.released;
  });

  it('migrates while another connection holds the write lock, by waiting for it (begin immediate + retry)', async () => {
    const other = await createSqliteNamespace();
    const store = await SqliteStore.open(other.path, { busyTimeoutMs: 1 });
    try {
      const lock = await holdWriteLock(other.path, 60);
      const report = await store.migrate();
      expect(report.applied.length).toBeGreaterThan(0);
      await lock.released;
    } finally {
      await store.close();
      await other.drop();
    }
  });

  it('closes the file it opened, but never a Kysely instance the caller passed', async () => {
    const owned = await SqliteStore.open(ns.path);
    await owned.find(keyOf('x'));
    await owned.close();
    await owned.close();
    await expect(owned.find(keyOf('y'))).rejects.toThrow();

    const database = new Database(ns.path);
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
    const borrowed = new SqliteStore({ db });
    await borrowed.find(keyOf('z'));
    await borrowed.close();
    expect(database.open).toBe(true);
    expect(await borrowed.find(keyOf('z'))).toBeNull();
    await db.destroy();
  });
});

describe('postgres: PostgresStore.connect pool', () => {
  let ns: PostgresNamespace;
  let store: PostgresStore;
  const applicationName = `payonce-test-${randomUUID()}`;
  beforeAll(async () => {
    ns = await createPostgresNamespace();
    store = await PostgresStore.connect({ ...ns.config, application_name: applicationName });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await ns?.drop();
  });

  it('survives the server killing an idle connection, and the next statement reconnects', async () => {
    expect(await store.find(keyOf('idle'))).toBeNull();
    const admin = new pg.Client(ns.config);
    await admin.connect();
    try {
      const killed = await admin.query(
        'select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1',
        [applicationName],
      );
      expect(killed.rows.length).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the idle client see its socket close
    expect(await store.find(keyOf('after'))).toBeNull();
  });

  it('survives the server killing a connection in the middle of a statement: StoreUnavailable, process alive', async () => {
    const key = keyOf('mid-statement');
    const guard = new IdempotencyGuard(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const running = guard.run(key, async () => {
      entered();
      await held;
      return { body: 'done' };
    });
    running.catch(() => undefined); // the assertion below checks it; never an unhandled rejection on early failure
    await inHandler;
    const locker = new pg.Client(ns.config);
    const admin = new pg.Client(ns.config);
    await locker.connect();
    await admin.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from payonce_receipts where external_id = $1 for update', [key.externalId]);
      release();
      let blocked: number | null = null;
      for (let i = 0; i < 100 && blocked === null; i++) {
        const rows = await admin.query(
          "select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
          [applicationName],
        );
        blocked = (rows.rows[0] as { pid: number } | undefined)?.pid ?? null;
        if (blocked === null) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(blocked).not.toBeNull();
      // Attach the expectation before the kill, so the rejection is never momentarily unhandled.
      const rejected = expect(running).rejects.toBeInstanceOf(StoreUnavailable);
      await admin.query('select pg_terminate_backend($1)', [blocked]);
      await rejected;
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
      await admin.end();
    }
    let receipt = await store.find(key).catch(() => null);
    if (receipt === null) receipt = await store.find(key);
    expect(receipt?.status).toBe('processing');
  });
});

describe('connect() URL checks', () => {
  it('PostgresStore.connect and MysqlStore.connect reject a URL of the wrong scheme before connecting', async () => {
    await expect(PostgresStore.connect('mysql://root@127.0.0.1/test')).rejects.toBeInstanceOf(InvalidOption);
    await expect(MysqlStore.connect('postgres://postgres@127.0.0.1/test')).rejects.toBeInstanceOf(InvalidOption);
  });
});
