/**
 * The long-lived namespace of the scale bench's "stored receipts" side: a PostgreSQL schema or
 * a MariaDB database named `payonce_scale_<receipts>` (`_<run>` appended when `PAYONCE_SCALE_RUN` is set), migrated with payonce's own migrations (the real table, its
 * four indexes, the finish-notify trigger) and seeded ONCE with `receipts` finished receipts (`seed-statements.ts`).
 *
 * Why not the harness's `BENCH_NS`: the harness empties that namespace before every side, and seeding a million
 * rows before each of ten sides would cost minutes. Instead the seeded namespace outlives the sides: the first
 * side that needs it (or `prepare()` of `targets/scale.ts`, before any pair) seeds it, every later side
 * reuses it, and each side deletes the rows its own deliveries wrote (every row claimed after `seeded_until`, found
 * through the (status, claimed_at) index) before and after it runs, then VACUUMs on PostgreSQL — so every timed
 * run starts at exactly `receipts` rows. `cleanup()` of the targets file (or `dropSeeded`) drops it at the end.
 *
 * A side holds a server-side lock on the namespace's name for its whole run (`pg_advisory_lock`, `GET_LOCK`), so
 * two bench runs sharing this machine never seed, time or clean the same namespace at once. What was seeded is
 * recorded in the table `payonce_scale_seed` (spec, rows, seeded_until); a namespace of another spec or size, or
 * a seeding that was interrupted (no record), is dropped and seeded again.
 */
import type { Connection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { Client } from 'pg';
import { BENCH_URLS } from '../lib/bench-urls.js';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { mysqlConnection, pgClient } from './drivers.js';
import { mysqlSeed, POSTGRES_SEED, SEED_SPEC } from './seed-statements.js';

/** The backends the scale bench seeds. */
export type ScaleBackend = 'postgres' | 'mysql';

/** A seeded namespace as the side uses it. */
export interface SeededNamespace {
  readonly name: string;
  readonly info: NamespaceInfo;
  /** Finished receipts seeded (every timed run starts with exactly these). */
  readonly receipts: number;
  /** The newest created_at/claimed_at of any seeded row (Unix ms): every later claim is a side's. */
  readonly seededUntilMs: number;
  /** Seconds this process spent seeding (0 when the namespace was already there). */
  readonly seedSeconds: number;
}

/** Progress output (stderr). */
export type Log = (line: string) => void;

/** Rows per seeding statement (one commit each), so progress shows and no transaction grows huge. */
const SEED_CHUNK = 250_000;

/**
 * The environment variable naming one bench run's seeded namespaces: `prepare()` of `targets/scale.ts` sets
 * it (a random tag) in the harness's process, its side processes inherit it, and `cleanup()` drops only that run's
 * namespaces — so two bench runs sharing this machine's servers never drop each other's seeded data. A side run
 * without it (by hand, or a harness that does not call `prepare()`) uses the shared `payonce_scale_<receipts>`.
 */
export const SCALE_RUN_ENV = 'PAYONCE_SCALE_RUN';

/** The name of the seeded namespace of `receipts` rows (of this bench run when `PAYONCE_SCALE_RUN` is set). */
export function seededName(receipts: number): string {
  const run = process.env[SCALE_RUN_ENV];
  const base = `payonce_scale_${Math.trunc(receipts)}`;
  return run && /^[a-z0-9]{1,20}$/.test(run) ? `${base}_${run}` : base;
}

const META_DDL = `create table payonce_scale_seed (spec varchar(40) not null, receipts bigint not null,
seeded_until bigint not null)`;

/** The operations on one backend's seeded namespace; each opens its own connections. */
interface SeedBackend {
  info(name: string): NamespaceInfo;
  /** Holds the namespace's lock until `release()` (the lock's connection stays open meanwhile). */
  lock(name: string): Promise<{ release(): Promise<void> }>;
  /** The seeding record, or null when the namespace or its record is missing. */
  record(name: string): Promise<{ spec: string; receipts: number; seededUntil: number } | null>;
  drop(name: string): Promise<void>;
  /** Creates, migrates and seeds the namespace, then writes its record. */
  seed(name: string, receipts: number, seededUntil: number, log: Log): Promise<void>;
  /** Deletes every row claimed after `seededUntil`; returns how many. */
  deleteLater(name: string, seededUntil: number): Promise<number>;
  /** Rows in the receipts table and its size on disk (table + indexes), bytes. */
  measure(name: string): Promise<{ rows: number; bytes: number }>;
}

async function withPg<T>(fn: (client: Client) => Promise<T>, schema?: string): Promise<T> {
  const client = await pgClient({
    connectionString: BENCH_URLS.postgres,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const postgresBackend: SeedBackend = {
  info: (name) => ({
    backend: 'postgres',
    postgres: { connectionString: BENCH_URLS.postgres, options: `-c search_path=${name}` },
  }),
  async lock(name) {
    const client = await pgClient({ connectionString: BENCH_URLS.postgres });
    await client.connect();
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    return { release: () => client.end() };
  },
  record: (name) =>
    withPg(async (client) => {
      const exists = await client.query(
        `select 1 from information_schema.tables where table_schema = $1 and table_name = 'payonce_scale_seed'`,
        [name],
      );
      if (exists.rowCount === 0) return null;
      const { rows } = await client.query<{ spec: string; receipts: string; seeded_until: string }>(
        `select spec, receipts, seeded_until from ${name}.payonce_scale_seed`,
      );
      const row = rows[0];
      return row ? { spec: row.spec, receipts: Number(row.receipts), seededUntil: Number(row.seeded_until) } : null;
    }),
  drop: (name) => withPg((client) => client.query(`drop schema if exists ${name} cascade`).then(() => {})),
  async seed(name, receipts, seededUntil, log) {
    await withPg((client) => client.query(`create schema ${name}`));
    const info = postgresBackend.info(name);
    const { PostgresStore } = await import('payonce/internal/stores/postgres/postgres-store.js');
    const store = await PostgresStore.connect(info.postgres!);
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    await withPg(async (client) => {
      // Bulk load without the indexes, then build them from their own definitions (as read back from the
      // catalog after migrating, and checked to match afterwards): sorting 1M keys once is minutes faster than
      // a million random B-tree inserts.
      const indexes = await client.query<{ indexname: string; indexdef: string }>(
        `select indexname, indexdef from pg_indexes where schemaname = $1 and tablename = 'payonce_receipts'
order by indexname`,
        [name],
      );
      await client.query('alter table payonce_receipts drop constraint payonce_receipts_pkey');
      for (const { indexname } of indexes.rows) {
        if (indexname !== 'payonce_receipts_pkey') await client.query(`drop index ${indexname}`);
      }
      for (let from = 1; from <= receipts; from += SEED_CHUNK) {
        const to = Math.min(receipts, from + SEED_CHUNK - 1);
        await client.query(POSTGRES_SEED, [seededUntil, from, to]);
        log(`    seeded ${to.toLocaleString('en')} of ${receipts.toLocaleString('en')} receipts`);
      }
      for (const { indexdef } of indexes.rows) await client.query(indexdef);
      await client.query(
        'alter table payonce_receipts add constraint payonce_receipts_pkey primary key using index payonce_receipts_pkey',
      );
      const rebuilt = await client.query<{ indexname: string; indexdef: string }>(
        `select indexname, indexdef from pg_indexes where schemaname = $1 and tablename = 'payonce_receipts'
order by indexname`,
        [name],
      );
      if (JSON.stringify(rebuilt.rows) !== JSON.stringify(indexes.rows)) {
        throw new Error(`rebuilt indexes differ from the migrated ones: ${JSON.stringify(rebuilt.rows)}`);
      }
      log(`    built ${indexes.rows.length} indexes`);
      // What a live table has: statistics (autovacuum is off on this server), hint bits and the visibility map
      // set, and the bulk load's dirty pages written out before any timed run.
      await client.query('vacuum (analyze) payonce_receipts');
      await client.query('checkpoint');
      await client.query(META_DDL);
      await client.query('insert into payonce_scale_seed values ($1, $2, $3)', [SEED_SPEC, receipts, seededUntil]);
    }, name);
  },
  deleteLater: (name, seededUntil) =>
    withPg(async (client) => {
      const result = await client.query(
        `delete from payonce_receipts where status in ('processing', 'completed', 'failed') and claimed_at > $1`,
        [seededUntil],
      );
      const deleted = result.rowCount ?? 0;
      if (deleted > 0) await client.query('vacuum payonce_receipts');
      return deleted;
    }, name),
  measure: (name) =>
    withPg(async (client) => {
      const { rows } = await client.query<{ rows: string; bytes: string }>(
        `select count(*) as rows, pg_total_relation_size('payonce_receipts') as bytes from payonce_receipts`,
      );
      return { rows: Number(rows[0]!.rows), bytes: Number(rows[0]!.bytes) };
    }, name),
};

function mysqlUrlOf(database?: string): string {
  const url = new URL(BENCH_URLS.mysql);
  if (database) url.pathname = `/${database}`;
  return url.toString();
}

async function withMysql<T>(fn: (connection: Connection) => Promise<T>, database?: string): Promise<T> {
  const connection = await mysqlConnection(mysqlUrlOf(database));
  try {
    return await fn(connection);
  } finally {
    await connection.end();
  }
}

/** The receipts table's secondary (non-unique) indexes: name and column list, in index-name order. */
async function secondaryIndexes(connection: Connection, database: string) {
  const [rows] = await connection.query<RowDataPacket[]>(
    `select index_name as name, group_concat(column_name order by seq_in_index) as columns
from information_schema.statistics
where table_schema = ? and table_name = 'payonce_receipts' and index_name <> 'PRIMARY'
group by index_name order by index_name`,
    [database],
  );
  return rows.map((row) => ({ name: String(row.name), columns: String(row.columns) }));
}

const mysqlBackend: SeedBackend = {
  info: (name) => ({ backend: 'mysql', mysqlUrl: mysqlUrlOf(name) }),
  async lock(name) {
    const connection = await mysqlConnection(mysqlUrlOf());
    const [rows] = await connection.query<RowDataPacket[]>('select get_lock(?, 3600) as held', [name]);
    if (Number(rows[0]?.held) !== 1) {
      await connection.end();
      throw new Error(`could not lock the seeded namespace ${name} within an hour`);
    }
    return { release: () => connection.end() };
  },
  record: (name) =>
    withMysql(async (connection) => {
      const [exists] = await connection.query<RowDataPacket[]>(
        `select 1 from information_schema.tables where table_schema = ? and table_name = 'payonce_scale_seed'`,
        [name],
      );
      if (exists.length === 0) return null;
      const [rows] = await connection.query<RowDataPacket[]>(
        `select spec, receipts, seeded_until from ${name}.payonce_scale_seed`,
      );
      const row = rows[0];
      return row
        ? { spec: String(row.spec), receipts: Number(row.receipts), seededUntil: Number(row.seeded_until) }
        : null;
    }),
  drop: (name) => withMysql((connection) => connection.query(`drop database if exists ${name}`).then(() => {})),
  async seed(name, receipts, seededUntil, log) {
    await withMysql((connection) => connection.query(`create database ${name}`));
    const { MysqlStore } = await import('payonce/internal/stores/mysql/mysql-store.js');
    const store = await MysqlStore.connect(mysqlUrlOf(name));
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    await withMysql(async (connection) => {
      // InnoDB: the rows go in primary-key order in ONE statement (the clustered index is appended to, not split
      // a million times at random), without the secondary indexes, which are then built by sorting, from the
      // definitions the migrations created (read back, and checked to match afterwards).
      const before = await secondaryIndexes(connection, name);
      await connection.query(
        `alter table payonce_receipts ${before.map((index) => `drop index ${index.name}`).join(', ')}`,
      );
      log(`    inserting ${receipts.toLocaleString('en')} receipts in primary-key order (one statement)`);
      await connection.query(`${mysqlSeed({ from: 1, to: receipts })} order by 1, 2`, [seededUntil]);
      log(`    seeded ${receipts.toLocaleString('en')} receipts`);
      await connection.query(
        `alter table payonce_receipts ${before.map((index) => `add index ${index.name} (${index.columns})`).join(', ')}`,
      );
      const after = await secondaryIndexes(connection, name);
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        throw new Error(`rebuilt indexes differ from the migrated ones: ${JSON.stringify(after)}`);
      }
      log(`    built ${after.length} secondary indexes`);
      await connection.query('analyze table payonce_receipts');
      await connection.query(META_DDL);
      await connection.query('insert into payonce_scale_seed values (?, ?, ?)', [SEED_SPEC, receipts, seededUntil]);
    }, name);
  },
  deleteLater: (name, seededUntil) =>
    withMysql(async (connection) => {
      const [result] = await connection.query<ResultSetHeader>(
        `delete from payonce_receipts where status in ('processing', 'completed', 'failed') and claimed_at > ?`,
        [seededUntil],
      );
      return result.affectedRows;
    }, name),
  measure: (name) =>
    withMysql(async (connection) => {
      const [count] = await connection.query<RowDataPacket[]>('select count(*) as n from payonce_receipts');
      const [size] = await connection.query<RowDataPacket[]>(
        `select data_length + index_length as bytes from information_schema.tables
where table_schema = ? and table_name = 'payonce_receipts'`,
        [name],
      );
      return { rows: Number(count[0]!.n), bytes: Number(size[0]!.bytes) };
    }, name),
};

const BACKENDS: Record<ScaleBackend, SeedBackend> = { postgres: postgresBackend, mysql: mysqlBackend };

/** Seeds (when missing or stale) the namespace of `receipts` rows; the caller holds its lock. */
async function ensureLocked(backend: ScaleBackend, receipts: number, log: Log): Promise<SeededNamespace> {
  const ops = BACKENDS[backend];
  const name = seededName(receipts);
  const record = await ops.record(name);
  if (record && record.spec === SEED_SPEC && record.receipts === receipts) {
    return { name, info: ops.info(name), receipts, seededUntilMs: record.seededUntil, seedSeconds: 0 };
  }
  log(`  ${backend}: seeding ${receipts.toLocaleString('en')} finished receipts into ${name} (untimed)`);
  const started = performance.now();
  await ops.drop(name);
  const seededUntil = Date.now();
  try {
    await ops.seed(name, receipts, seededUntil, log);
  } catch (error) {
    await ops.drop(name).catch(() => {});
    throw error;
  }
  const seedSeconds = (performance.now() - started) / 1_000;
  log(`  ${backend}: seeded ${name} in ${seedSeconds.toFixed(1)} s`);
  return { name, info: ops.info(name), receipts, seededUntilMs: seededUntil, seedSeconds };
}

/**
 * Seeds the namespace of `receipts` rows on `backend` unless it is already there (untimed set-up, e.g. from
 * `prepare()` before the first pair). @throws the driver's error when the server refuses.
 */
export async function ensureSeeded(backend: ScaleBackend, receipts: number, log: Log): Promise<SeededNamespace> {
  const lock = await BACKENDS[backend].lock(seededName(receipts));
  try {
    return await ensureLocked(backend, receipts, log);
  } finally {
    await lock.release();
  }
}

/**
 * Runs `fn` on the seeded namespace under its lock: seeds it when needed, deletes any row a side left (an
 * interrupted one), calls `fn`, and deletes the rows `fn` wrote — also when `fn` throws.
 */
export async function withSeeded<T>(
  backend: ScaleBackend,
  receipts: number,
  log: Log,
  fn: (seeded: SeededNamespace, resetToSeed: () => Promise<number>) => Promise<T>,
): Promise<T> {
  const ops = BACKENDS[backend];
  const lock = await ops.lock(seededName(receipts));
  try {
    const seeded = await ensureLocked(backend, receipts, log);
    const resetToSeed = () => ops.deleteLater(seeded.name, seeded.seededUntilMs);
    const leftover = await resetToSeed();
    if (leftover > 0) log(`  ${backend}: removed ${leftover} rows an earlier side left in ${seeded.name}`);
    try {
      return await fn(seeded, resetToSeed);
    } finally {
      await resetToSeed();
    }
  } finally {
    await lock.release();
  }
}

/** Rows in the seeded (or any) namespace's receipts table and its size on disk. */
export function measureTable(backend: ScaleBackend, name: string): Promise<{ rows: number; bytes: number }> {
  return BACKENDS[backend].measure(name);
}

/** Drops the seeded namespace of `receipts` rows on `backend` (under its lock), if it exists. */
export async function dropSeeded(backend: ScaleBackend, receipts: number): Promise<void> {
  const name = seededName(receipts);
  const lock = await BACKENDS[backend].lock(name);
  try {
    await BACKENDS[backend].drop(name);
  } finally {
    await lock.release();
  }
}
