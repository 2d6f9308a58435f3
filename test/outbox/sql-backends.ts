import { MysqlStore } from '../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';

/**
 * A migrated, isolated namespace on one SQL backend (temp SQLite file, PostgreSQL schema, MariaDB database).
 * `open()` returns a store on a NEW connection/pool each call; `target` is what a child process needs to open
 * it (SQLite path, PostgreSQL schema, MySQL URL); `drop()` closes every store and drops the namespace.
 */
export interface SqlBackend {
  readonly dialect: SqlDialectName;
  readonly target: string;
  open(): Promise<SqlStore<unknown>>;
  drop(): Promise<void>;
}

/** Opens a store on `target` as described in {@link SqlBackend}; used by child processes too. */
export async function openTarget(dialect: SqlDialectName, target: string): Promise<SqlStore<unknown>> {
  // Tests only: NORMAL skips an fsync per commit; durability on power loss is not what these tests check.
  if (dialect === 'sqlite') return SqliteStore.open<unknown>(target, { unsafeSynchronousNormal: true });
  if (dialect === 'postgres') {
    const base = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    return PostgresStore.connect<unknown>({ connectionString: base, options: `-c search_path=${target}` });
  }
  return MysqlStore.connect<unknown>(target);
}

async function namespaceOf(dialect: SqlDialectName): Promise<{ target: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const ns = await createSqliteNamespace();
    return { target: ns.path, drop: ns.drop };
  }
  if (dialect === 'postgres') {
    const ns = await createPostgresNamespace();
    return { target: ns.schema, drop: ns.drop };
  }
  const ns = await createMysqlNamespace();
  return { target: ns.url, drop: ns.drop };
}

/** Creates and migrates a fresh namespace on `dialect`. */
export async function createSqlBackend(dialect: SqlDialectName): Promise<SqlBackend> {
  const ns = await namespaceOf(dialect);
  const setup = await openTarget(dialect, ns.target);
  try {
    await setup.migrate();
  } finally {
    await setup.close();
  }
  const opened: SqlStore<unknown>[] = [];
  return {
    dialect,
    target: ns.target,
    async open() {
      const store = await openTarget(dialect, ns.target);
      opened.push(store);
      return store;
    },
    async drop() {
      await Promise.all(opened.map((store) => store.close()));
      await ns.drop();
    },
  };
}

/** The SQL dialects selected by `PAYONCE_BACKENDS` (all three by default). */
export function sqlDialectsFromEnv(): SqlDialectName[] {
  const selected = new Set<string>(backendsFromEnv());
  return (['sqlite', 'postgres', 'mysql'] as const).filter((dialect) => selected.has(dialect));
}
