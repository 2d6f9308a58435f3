import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { BENCH_URLS } from './namespaces.js';

/** Versions of everything a row depends on, read from the installed packages and queried live from the servers. */
export interface Versions {
  readonly node: string;
  readonly v8: string;
  readonly os: string;
  readonly cpus: string;
  readonly memoryGiB: number;
  /** Installed package versions (node_modules), nested copies named `outer > inner`. */
  readonly packages: Readonly<Record<string, string>>;
  /** Server versions and the durability settings that bound their commit rate. */
  readonly servers: Readonly<Record<string, string>>;
}

const ROOT = join(import.meta.dirname, '..', '..', '..');

const PACKAGES: readonly (readonly [string, string])[] = [
  ['payonce', '.'],
  ['kysely', 'node_modules/kysely'],
  ['pg', 'node_modules/pg'],
  ['mysql2', 'node_modules/mysql2'],
  ['better-sqlite3', 'node_modules/better-sqlite3'],
  ['ioredis', 'node_modules/ioredis'],
  ['fastify', 'node_modules/fastify'],
  ['express', 'node_modules/express'],
  ['undici', 'node_modules/undici'],
  ['standardwebhooks', 'node_modules/standardwebhooks'],
  ['tsx', 'node_modules/tsx'],
  ['@aws-lambda-powertools/idempotency', 'node_modules/@aws-lambda-powertools/idempotency'],
  ['@redis/client (Powertools)', 'node_modules/@redis/client'],
  ['@node-idempotency/core', 'node_modules/@node-idempotency/core'],
  ['@node-idempotency/storage-adapter-memory', 'node_modules/@node-idempotency/storage-adapter-memory'],
  ['@node-idempotency/storage-adapter-redis', 'node_modules/@node-idempotency/storage-adapter-redis'],
  ['redis (node-idempotency)', 'node_modules/redis'],
  ['express-idempotency', 'node_modules/express-idempotency'],
];

function packageVersion(dir: string): string {
  const file = join(ROOT, dir, 'package.json');
  if (!existsSync(file)) return 'not installed';
  return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
}

async function attempt(what: string, fn: () => Promise<string>): Promise<string> {
  try {
    return await fn();
  } catch (error) {
    return `unavailable (${what}: ${error instanceof Error ? error.message : String(error)})`;
  }
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: BENCH_URLS.postgres });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string; fsync: string; sc: string }>(
      "select current_setting('server_version') as v, current_setting('fsync') as fsync, current_setting('synchronous_commit') as sc",
    );
    const row = rows[0]!;
    return `PostgreSQL ${row.v} (fsync=${row.fsync}, synchronous_commit=${row.sc})`;
  } finally {
    await client.end();
  }
}

async function mariadbVersion(): Promise<string> {
  const connection = await mysql.createConnection({ uri: BENCH_URLS.mysql });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      'select version() as v, @@innodb_flush_log_at_trx_commit as flush, @@sync_binlog as sync_binlog, @@log_bin as log_bin',
    );
    const row = rows[0]!;
    return `${row.v} (innodb_flush_log_at_trx_commit=${row.flush}, log_bin=${row.log_bin}, sync_binlog=${row.sync_binlog})`;
  } finally {
    await connection.end();
  }
}

async function redisVersion(): Promise<string> {
  const client = new Redis(BENCH_URLS.redis, { maxRetriesPerRequest: 2 });
  try {
    const info = await client.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const [, appendonly] = (await client.config('GET', 'appendonly')) as string[];
    const [, appendfsync] = (await client.config('GET', 'appendfsync')) as string[];
    return `Redis ${version} (appendonly=${appendonly}, appendfsync=${appendfsync})`;
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    const row = db.prepare('select sqlite_version() as v').get() as { v: string };
    return `SQLite ${row.v} (WAL; synchronous FULL and NORMAL rows)`;
  } finally {
    db.close();
  }
}

/** Collects `Versions` now. Server failures are reported in place of a version, never thrown. */
export async function collectVersions(): Promise<Versions> {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: `${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    packages: Object.fromEntries(PACKAGES.map(([name, dir]) => [name, packageVersion(dir)])),
    servers: {
      postgres: await attempt('postgres', postgresVersion),
      mariadb: await attempt('mariadb', mariadbVersion),
      redis: await attempt('redis', redisVersion),
      sqlite: await attempt('sqlite', async () => sqliteVersion()),
    },
  };
}
