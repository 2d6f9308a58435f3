import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { MysqlStore } from 'payonce/internal/stores/mysql/mysql-store.js';
import { PostgresStore } from 'payonce/internal/stores/postgres/postgres-store.js';
import { SqliteStore } from 'payonce/internal/stores/sqlite/sqlite-store.js';
import pg from 'pg';
import { BENCH_URLS } from './bench-urls.js';

/** Where the bench's servers are; overridable like the test suite's (bench-urls.ts). */
export { BENCH_URLS };

/** The backends a bench row can run on. `sqlite` is synchronous=FULL, `sqlite-normal` synchronous=NORMAL. */
export type BenchBackend = 'memory' | 'sqlite' | 'sqlite-normal' | 'postgres' | 'mysql' | 'redis';

/**
 * Everything a subject needs to connect to one isolated namespace: a PostgreSQL schema, a MariaDB database, a
 * SQLite file or a Redis key prefix. Plain data, so it can be handed to an HTTP server child process.
 */
export interface NamespaceInfo {
  readonly backend: BenchBackend;
  /** PostgreSQL: pool config with `-c search_path=<schema>`. */
  readonly postgres?: { readonly connectionString: string; readonly options: string };
  /** MariaDB: URL of the bench database. */
  readonly mysqlUrl?: string;
  /** SQLite: file path and whether synchronous=NORMAL is used. */
  readonly sqlite?: { readonly path: string; readonly synchronousNormal: boolean };
  /** Redis: URL (with the logical database the bench picked) and the key prefix every subject must write under. */
  readonly redis?: { readonly url: string; readonly prefix: string };
}

/** A namespace the bench created: `reset()` empties it between runs (untimed), `drop()` removes it. */
export interface Namespace {
  readonly info: NamespaceInfo;
  reset(): Promise<void>;
  drop(): Promise<void>;
}

/** A business table for `runInTransaction` rows: the receipt and this write commit together. */
export const LEDGER_DDL = {
  postgres: 'create table if not exists bench_ledger (event_id varchar(160) primary key, amount bigint not null)',
} as const;

const suffix = (): string => randomBytes(5).toString('hex');

async function postgresNamespace(): Promise<Namespace> {
  const schema = `payonce_bench_${suffix()}`;
  const admin = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: BENCH_URLS.postgres });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create schema ${schema}`);
  const config = { connectionString: BENCH_URLS.postgres, options: `-c search_path=${schema}` };
  const store = await PostgresStore.connect(config);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  await admin(`set search_path = ${schema}; ${LEDGER_DDL.postgres}`);
  return {
    info: { backend: 'postgres', postgres: config },
    // The outbox rows are the stack-*-vs-own targets' (stack/stack-side.ts); the other rows write none.
    reset: () =>
      admin(
        `truncate ${schema}.payonce_receipts, ${schema}.bench_ledger, ${schema}.payonce_outbox, ${schema}.payonce_outbox_order`,
      ),
    drop: () => admin(`drop schema if exists ${schema} cascade`),
  };
}

async function mysqlNamespace(): Promise<Namespace> {
  const database = `payonce_bench_${suffix()}`;
  const admin = async (statement: string): Promise<void> => {
    const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await admin(`create database ${database}`);
  const url = new URL(BENCH_URLS.mysql);
  url.pathname = `/${database}`;
  const store = await MysqlStore.connect(url.toString());
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  return {
    info: { backend: 'mysql', mysqlUrl: url.toString() },
    reset: () => admin(`truncate table ${database}.payonce_receipts`),
    drop: () => admin(`drop database if exists ${database}`),
  };
}

async function sqliteNamespace(synchronousNormal: boolean): Promise<Namespace> {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-bench-'));
  const path = join(dir, 'bench.db');
  const store = await SqliteStore.open(path, { unsafeSynchronousNormal: synchronousNormal });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  return {
    info: { backend: synchronousNormal ? 'sqlite-normal' : 'sqlite', sqlite: { path, synchronousNormal } },
    async reset() {
      const db = new Database(path, { timeout: 5_000 });
      try {
        db.exec('delete from payonce_receipts');
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Deletes every key under `prefix` (SCAN + UNLINK, never KEYS). */
export async function deleteRedisPrefix(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 10_000);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/**
 * The Redis URL the bench writes under: when `BENCH_URLS.redis` names no database, the logical database (0–15)
 * holding the fewest keys, so that emptying the bench's prefix (a SCAN over the whole database) does not walk other
 * work's keys before every side. Only keys under the bench's own prefix are ever deleted, whoever else uses that
 * database.
 */
async function quietRedisUrl(): Promise<string> {
  const url = new URL(BENCH_URLS.redis);
  if (url.pathname.length > 1) return BENCH_URLS.redis;
  const client = new Redis(BENCH_URLS.redis, { maxRetriesPerRequest: 3 });
  try {
    let best = { db: 0, keys: await client.dbsize() };
    for (let db = 1; db < 16 && best.keys > 0; db++) {
      const ok = await client.select(db).then(
        () => true,
        () => false,
      );
      if (!ok) break;
      const keys = await client.dbsize();
      if (keys < best.keys) best = { db, keys };
    }
    url.pathname = `/${best.db}`;
    return url.toString();
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

async function redisNamespace(): Promise<Namespace> {
  const prefix = `payonce-bench-${suffix()}:`;
  const redisUrl = await quietRedisUrl();
  const withClient = async (fn: (client: Redis) => Promise<unknown>): Promise<void> => {
    const client = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    try {
      await fn(client);
    } finally {
      await client.quit().catch(() => client.disconnect());
    }
  };
  const clear = () => withClient((client) => deleteRedisPrefix(client, prefix));
  return { info: { backend: 'redis', redis: { url: redisUrl, prefix } }, reset: clear, drop: clear };
}

/** Creates the bench's own isolated namespace on `backend` (migrated); the caller drops it. */
export function createNamespace(backend: BenchBackend): Promise<Namespace> {
  switch (backend) {
    case 'memory':
      return Promise.resolve({ info: { backend }, reset: async () => {}, drop: async () => {} });
    case 'sqlite':
      return sqliteNamespace(false);
    case 'sqlite-normal':
      return sqliteNamespace(true);
    case 'postgres':
      return postgresNamespace();
    case 'mysql':
      return mysqlNamespace();
    case 'redis':
      return redisNamespace();
  }
}
