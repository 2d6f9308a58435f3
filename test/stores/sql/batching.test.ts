import { randomUUID } from 'node:crypto';
import { Kysely, type LogEvent, MysqlDialect, type MysqlPool, PostgresDialect } from 'kysely';
import mysql from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption, StoreUnavailable } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import type { InsertClaimResult } from '../../../packages/payonce/src/core/store.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { ReceiptsDatabase } from '../../../packages/payonce/src/stores/sql/receipts-table.js';
import type { SqlBatching, SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../contract/backends/mysql.js';
import { createPostgresNamespace, type PostgresNamespace } from '../../contract/backends/postgres.js';

/** The PostgreSQL pools of this file, told apart from other files' by `killWaiting`. */
const APPLICATION_NAME = `payonce-batching-test-${process.pid}`;

/** One SQL statement the store sent, as Kysely logged it. */
interface Sent {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

const key = (label: string): RequestKey => new RequestKey('batch', `${label}-${randomUUID()}`);
const response = (text: string) => ({
  status: 200,
  headers: { 'content-type': 'text/plain' },
  body: Buffer.from(text),
});
const isClaimBatch = (s: Sent): boolean => /^insert into payonce_receipts/i.test(s.sql) && /unnest|\), \(/.test(s.sql);
const isSingleClaim = (s: Sent): boolean => /^insert into .payonce_receipts/i.test(s.sql) && !isClaimBatch(s);
const isCompleteBatch = (s: Sent): boolean => /^update payonce_receipts as r/i.test(s.sql);

/** What differs per backend in these tests. */
interface Harness {
  readonly name: 'postgres' | 'mysql';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A store on a new pool with a Kysely log of every statement it sends. */
  open(batching: boolean | SqlBatching): Promise<{ store: SqlStore<ReceiptsDatabase>; sent: Sent[] }>;
  /** Rows of one batched claim statement. */
  rowsOf(s: Sent): number;
  /** A claim request whose row the server rejects (the rest of its batch is valid). */
  badClaim(k: RequestKey): { key: RequestKey; nowMs: number; fingerprint: string | null };
  /** Runs `sql` on an admin connection of the namespace. */
  admin(sql: string, parameters?: unknown[]): Promise<unknown[]>;
  /** Holds an uncommitted claim of `k` on its own connection until `release()` (rolls back). */
  holdRow(k: RequestKey): Promise<{ release(): Promise<void> }>;
  /** Kills the connection running a statement that contains `fragment` once it waits for a lock. */
  killWaiting(fragment: string): Promise<void>;
  rowExists(k: RequestKey): Promise<boolean>;
}

const logInto =
  (sent: Sent[]) =>
  (event: LogEvent): void => {
    sent.push({ sql: event.query.sql, parameters: event.query.parameters });
  };

function postgresHarness(): Harness {
  let ns: PostgresNamespace;
  const stores: SqlStore<ReceiptsDatabase>[] = [];
  const client = async <T>(work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client(ns.config);
    c.on('error', () => {});
    await c.connect();
    try {
      return await work(c);
    } finally {
      await c.end().catch(() => {});
    }
  };
  return {
    name: 'postgres',
    async setup() {
      ns = await createPostgresNamespace();
      const store = await PostgresStore.connect(ns.config);
      await store.migrate();
      await store.close();
    },
    async teardown() {
      await Promise.all(stores.map((s) => s.close()));
      await ns?.drop();
    },
    async open(batching) {
      const sent: Sent[] = [];
      const pool = new pg.Pool({ ...ns.config, max: 10, application_name: APPLICATION_NAME });
      pool.on('error', () => {});
      pool.on('connect', (c) => c.on('error', () => {}));
      const db = new Kysely<ReceiptsDatabase>({ dialect: new PostgresDialect({ pool }), log: logInto(sent) });
      const store = new PostgresStore({ db, batching });
      stores.push({ close: () => db.destroy() } as unknown as SqlStore<ReceiptsDatabase>);
      return { store, sent };
    },
    rowsOf: (s) => (s.parameters[0] as unknown[]).length,
    badClaim: (k) => ({ key: k, nowMs: 1.5, fingerprint: null }),
    admin: (sql, parameters = []) => client(async (c) => (await c.query(sql, parameters)).rows),
    async holdRow(k) {
      const c = new pg.Client(ns.config);
      await c.connect();
      await c.query('begin');
      await c.query(
        `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
         values ($1, $2, 'processing', 1, 1, 1)`,
        [k.provider, k.externalId],
      );
      return {
        async release() {
          await c.query('rollback');
          await c.end();
        },
      };
    },
    async killWaiting(fragment) {
      for (let i = 0; i < 200; i++) {
        const rows = (await client(
          async (c) =>
            (
              await c.query(
                // Only this file's pools (other test files run at the same time on the same server).
                `select pid from pg_stat_activity where wait_event_type = 'Lock' and position($1 in query) > 0
                   and application_name = $2`,
                [fragment, APPLICATION_NAME],
              )
            ).rows,
        )) as { pid: number }[];
        if (rows.length > 0) {
          await client((c) => c.query('select pg_terminate_backend($1)', [rows[0]!.pid]));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no waiting batch statement found');
    },
    async rowExists(k) {
      const rows = await this.admin('select 1 from payonce_receipts where provider = $1 and external_id = $2', [
        k.provider,
        k.externalId,
      ]);
      return rows.length > 0;
    },
  };
}

function mysqlHarness(): Harness {
  let ns: MysqlNamespace;
  const closers: (() => Promise<void>)[] = [];
  const connection = async <T>(work: (c: mysql.Connection) => Promise<T>): Promise<T> => {
    const c = mysql.createConnection({ uri: ns.url });
    try {
      return await work(c);
    } finally {
      await c
        .promise()
        .end()
        .catch(() => {});
    }
  };
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  return {
    name: 'mysql',
    async setup() {
      ns = await createMysqlNamespace();
      const store = await MysqlStore.connect(ns.url);
      await store.migrate();
      await store.close();
    },
    async teardown() {
      await Promise.all(closers.map((close) => close()));
      await ns?.drop();
    },
    async open(batching) {
      const sent: Sent[] = [];
      const pool = mysql.createPool({ uri: ns.url, connectionLimit: 10 }) as unknown as MysqlPool;
      const db = new Kysely<ReceiptsDatabase>({ dialect: new MysqlDialect({ pool }), log: logInto(sent) });
      const store = new MysqlStore({ db, batching });
      closers.push(() => db.destroy());
      return { store, sent };
    },
    rowsOf: (s) => s.parameters.length / 5,
    // STRICT_TRANS_TABLES: a fingerprint over TEXT's 65 535 bytes is error 1406, never silently truncated.
    badClaim: (k) => ({ key: k, nowMs: Date.now(), fingerprint: 'f'.repeat(70_000) }),
    admin: (sql, parameters = []) =>
      connection(async (c) => (await c.promise().query(sql, parameters))[0] as unknown as unknown[]),
    async holdRow(k) {
      const c = mysql.createConnection({ uri: ns.url }).promise();
      await c.query('begin');
      await c.query(
        `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
         values (?, ?, 'processing', 1, 1, 1)`,
        [utf8(k.provider), utf8(k.externalId)],
      );
      return {
        async release() {
          await c.query('rollback');
          await c.end();
        },
      };
    },
    async killWaiting(fragment) {
      for (let i = 0; i < 200; i++) {
        const rows = (await this.admin(
          // Only this namespace's connections (other test files run at the same time on the same server).
          `select id from information_schema.processlist where info like ? and state like '%update%'
             and id <> connection_id() and db = database()`,
          [`%${fragment}%`],
        )) as { id: number }[];
        if (rows.length > 0) {
          await this.admin(`kill connection ${Number(rows[0]!.id)}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no waiting batch statement found');
    },
    async rowExists(k) {
      const rows = await this.admin('select 1 from payonce_receipts where provider = ? and external_id = ?', [
        utf8(k.provider),
        utf8(k.externalId),
      ]);
      return rows.length > 0;
    },
  };
}

for (const harness of [postgresHarness(), mysqlHarness()]) {
  describe(`${harness.name}: batched claims and completions`, () => {
    beforeAll(() => harness.setup(), 60_000);
    afterAll(() => harness.teardown());

    it('sends concurrent claims as ONE multi-row statement, and each caller sees its own row inserted', async () => {
      const { store, sent } = await harness.open({ maxConcurrentBatches: 1 });
      const keys = Array.from({ length: 20 }, (_, i) => key(`one-${i}`));
      const results = await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: 1_000, fingerprint: 'f' })));
      expect(results.every((r) => r.inserted && r.receipt.status === 'processing' && r.receipt.attempts === 1)).toBe(
        true,
      );
      expect(results.map((r) => r.receipt.key.externalId)).toEqual(keys.map((k) => k.externalId));
      expect(sent.filter(isClaimBatch).length).toBe(1);
      expect(sent.filter(isSingleClaim).length).toBe(0);
      for (const k of keys) expect(await harness.rowExists(k)).toBe(true);
    });

    it('lets the first of duplicate keys in one batch claim; the rest see its in-flight receipt', async () => {
      const { store, sent } = await harness.open({ maxConcurrentBatches: 1 });
      const dup = key('dup');
      const existing = key('existing');
      await store.insertClaim({ key: existing, nowMs: 5, fingerprint: 'old' });
      const requests = [
        { key: key('a'), nowMs: 10, fingerprint: 'a' },
        { key: dup, nowMs: 11, fingerprint: 'first' },
        { key: new RequestKey(dup.provider, dup.externalId), nowMs: 12, fingerprint: 'second' },
        { key: existing, nowMs: 13, fingerprint: 'new' },
        { key: dup, nowMs: 14, fingerprint: 'third' },
      ];
      sent.length = 0;
      const results = await Promise.all(requests.map((r) => store.insertClaim(r)));
      expect(results.map((r) => r.inserted)).toEqual([true, true, false, false, false]);
      for (const r of [results[2]!, results[4]!]) {
        expect(r.receipt).toMatchObject({ status: 'processing', attempts: 1, claimedAtMs: 11, fingerprint: 'first' });
      }
      expect(results[3]!.receipt).toMatchObject({ status: 'processing', claimedAtMs: 5, fingerprint: 'old' });
      expect(sent.filter(isClaimBatch).length).toBeGreaterThanOrEqual(1);
      expect(sent.filter(isSingleClaim).length).toBe(0);
    });

    it('respects maxBatchSize', async () => {
      const { store, sent } = await harness.open({ maxBatchSize: 4, maxConcurrentBatches: 1 });
      const keys = Array.from({ length: 10 }, (_, i) => key(`cap-${i}`));
      await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: 1, fingerprint: null })));
      expect(sent.filter(isClaimBatch).map((s) => harness.rowsOf(s))).toEqual([4, 4, 2]);
    });

    it('keeps several batches in flight, up to maxConcurrentBatches', async () => {
      const { store, sent } = await harness.open({ maxConcurrentBatches: 3, maxBatchSize: 2 });
      const keys = Array.from({ length: 6 }, (_, i) => key(`par-${i}`));
      await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: 1, fingerprint: null })));
      expect(sent.filter(isClaimBatch).map((s) => harness.rowsOf(s))).toEqual([2, 2, 2]);
    });

    it('sends a lone claim at once as the single-row statement (no timer window)', async () => {
      const { store, sent } = await harness.open(true);
      for (let i = 0; i < 3; i++) {
        const k = key(`alone-${i}`);
        const started = performance.now();
        const result = await store.insertClaim({ key: k, nowMs: 1, fingerprint: null });
        expect(result.inserted).toBe(true);
        // A lone call never waits for company: it is sent within the same turn of the event loop.
        expect(performance.now() - started).toBeLessThan(2_000);
      }
      expect(sent.filter(isClaimBatch).length).toBe(0);
      expect(sent.filter(isSingleClaim).length).toBe(3);
    });

    it('fails only the bad row of a batch; the others are claimed', async () => {
      const { store } = await harness.open({ maxConcurrentBatches: 1 });
      const good = Array.from({ length: 5 }, (_, i) => key(`good-${i}`));
      const bad = key('bad');
      const settled = await Promise.allSettled([
        ...good.map((k) => store.insertClaim({ key: k, nowMs: 1, fingerprint: null })),
        store.insertClaim(harness.badClaim(bad)),
      ]);
      expect(settled.slice(0, 5).map((s) => s.status === 'fulfilled' && s.value.inserted)).toEqual([
        true,
        true,
        true,
        true,
        true,
      ]);
      expect(settled[5]!.status).toBe('rejected');
      expect(await harness.rowExists(bad)).toBe(false);
      for (const k of good) expect(await harness.rowExists(k)).toBe(true);
    });

    it('answers no caller before its batch committed: a batch whose connection is killed fails all its callers', async () => {
      const { store } = await harness.open({ maxConcurrentBatches: 1 });
      const held = key('held');
      const others = Array.from({ length: 6 }, (_, i) => key(`killed-${i}`));
      const hold = await harness.holdRow(held);
      const answers: InsertClaimResult[] = [];
      const calls = [held, ...others].map((k) =>
        store.insertClaim({ key: k, nowMs: 1, fingerprint: null }).then((r) => {
          answers.push(r);
          return r;
        }),
      );
      const allSettled = Promise.allSettled(calls); // handled from the start: they reject during killWaiting
      try {
        await harness.killWaiting('payonce_receipts');
        const settled = await allSettled;
        expect(settled.every((s) => s.status === 'rejected')).toBe(true);
        expect(answers).toEqual([]);
      } finally {
        await hold.release();
      }
      for (const k of others) expect(await harness.rowExists(k)).toBe(false);
      // Through the guard, the driver error becomes StoreUnavailable.
      const guard = new IdempotencyGuard(store);
      const again = await harness.holdRow(held);
      const runs = Promise.allSettled([held, key('guarded')].map((k) => guard.run(k, () => ({ body: 'x' }))));
      try {
        await harness.killWaiting('payonce_receipts');
        const settled = await runs;
        for (const s of settled) {
          expect(s.status).toBe('rejected');
          expect((s as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailable);
        }
      } finally {
        await again.release();
      }
    });

    it('never batches a call inside a caller transaction, and rolls it back with the caller', async () => {
      const { store, sent } = await harness.open({ maxConcurrentBatches: 1 });
      const inTx = key('tx');
      const outside = Array.from({ length: 4 }, (_, i) => key(`out-${i}`));
      await expect(
        store.db.transaction().execute(async (tx) => {
          const view = store.withTransaction(tx);
          const [claim] = await Promise.all([
            view.insertClaim({ key: inTx, nowMs: 1, fingerprint: null }),
            ...outside.map((k) => store.insertClaim({ key: k, nowMs: 1, fingerprint: null })),
          ]);
          expect(claim.inserted).toBe(true);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await harness.rowExists(inTx)).toBe(false);
      for (const k of outside) expect(await harness.rowExists(k)).toBe(true);
      const batches = sent.filter(isClaimBatch);
      expect(batches.length).toBe(1);
      expect(harness.rowsOf(batches[0]!)).toBe(4);
      expect(sent.filter(isSingleClaim).length).toBe(1);
    });

    it('completes many rows in ONE fenced statement and tells each caller whether ITS row changed', async () => {
      const { store, sent } = await harness.open({ maxConcurrentBatches: 1 });
      const keys = Array.from({ length: 6 }, (_, i) => key(`done-${i}`));
      await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: 1, fingerprint: null })));
      // keys[2] was taken over (attempt 2): the late completion at attempt 1 must change nothing.
      expect(
        await store.takeover({ key: keys[2]!, expectedStatus: 'processing', expectedAttempts: 1, nowMs: 2 }),
      ).not.toBeNull();
      sent.length = 0;
      const done = await Promise.all(
        keys.map((k, i) => store.complete({ key: k, attempt: 1, nowMs: 3 + i, response: response(`r${i}`) })),
      );
      expect(done).toEqual([true, true, false, true, true, true]);
      expect(sent.filter(isCompleteBatch).length).toBe(1);
      for (const [i, k] of keys.entries()) {
        const receipt = await store.find(k);
        if (i === 2) expect(receipt).toMatchObject({ status: 'processing', attempts: 2 });
        else {
          expect(receipt).toMatchObject({ status: 'completed', attempts: 1, finishedAtMs: 3 + i });
          expect(Buffer.from(receipt!.response!.body).toString()).toBe(`r${i}`);
        }
      }
    });

    it('rejects an invalid batching option with InvalidOption', async () => {
      for (const batching of [
        { maxBatchSize: 0 },
        { maxBatchSize: 1.5 },
        { maxBatchSize: 20_000 },
        { maxConcurrentBatches: -1 },
        { size: 4 },
        'yes',
        1,
      ]) {
        await expect(harness.open(batching as never)).rejects.toBeInstanceOf(InvalidOption);
      }
      const connect =
        harness.name === 'postgres'
          ? () => PostgresStore.connect('postgres://127.0.0.1:1/none', { batching: { maxBatchSize: -3 } })
          : () => MysqlStore.connect('mysql://127.0.0.1:1/none', { batching: { maxBatchSize: -3 } });
      await expect(connect()).rejects.toBeInstanceOf(InvalidOption);
    });
  });
}

describe('sqlite: batching', () => {
  it('is refused with InvalidOption (better-sqlite3 never has a statement in flight to queue behind)', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { SqliteDialect } = await import('kysely');
    const db = new Kysely<ReceiptsDatabase>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    try {
      expect(() => new SqliteStore({ db, batching: true })).toThrow(InvalidOption);
      expect(() => new SqliteStore({ db, batching: { maxBatchSize: 8 } })).toThrow(InvalidOption);
      expect(new SqliteStore({ db, batching: false }).batching).toBeNull();
    } finally {
      await db.destroy();
    }
  });
});

describe('postgres: batched statements on a fresh, unanalysed table', () => {
  let ns: PostgresNamespace;
  beforeAll(async () => {
    ns = await createPostgresNamespace();
    const store = await PostgresStore.connect(ns.config);
    await store.migrate();
    await store.close();
  }, 60_000);
  afterAll(() => ns?.drop());

  it('reach rows through the primary key (never a scan of the table), whatever the statistics', async () => {
    const { PG_COMPLETE_RECEIPTS, PG_FIND_RECEIPTS, PG_INSERT_CLAIMS } = await import(
      '../../../packages/payonce/src/stores/sql/postgres-batch-statements.js'
    );
    const c = new pg.Client(ns.config);
    await c.connect();
    try {
      await c.query('alter table payonce_receipts set (autovacuum_enabled = false)');
      await c.query(`insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, created_at)
        select 'p', 'k' || g, 'processing', 1, 1, 1 from generate_series(1, 50000) g`);
      const ids = Array.from({ length: 256 }, (_, i) => `k${i * 150 + 1}`);
      const providers = ids.map(() => 'p');
      const plan = async (sql: string, parameters: unknown[]): Promise<string> => {
        await c.query('begin');
        try {
          const { rows } = await c.query(`explain ${sql}`, parameters);
          return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
        } finally {
          await c.query('rollback');
        }
      };
      const n = ids.map(() => 1);
      const complete = await plan(PG_COMPLETE_RECEIPTS, [
        providers,
        ids,
        n,
        n,
        n,
        ids.map(() => '{}'),
        ids.map(() => Buffer.alloc(0)),
      ]);
      expect(complete).toContain('Tid Scan on payonce_receipts r');
      expect(complete).toContain('Index Scan using payonce_receipts_pkey');
      const find = await plan(PG_FIND_RECEIPTS, [providers, ids]);
      const claim = await plan(PG_INSERT_CLAIMS, [providers, ids, n, ids.map(() => null)]);
      for (const text of [complete, find, claim]) {
        expect(text).not.toMatch(/Seq Scan on payonce_receipts|Bitmap Heap Scan|status_claimed_at/);
      }
      expect(find).toContain('Index Scan using payonce_receipts_pkey');
    } finally {
      await c.end();
    }
  });
});
