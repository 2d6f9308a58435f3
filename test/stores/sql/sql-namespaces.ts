import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { ReceiptsDatabase } from '../../../packages/payonce/src/stores/sql/receipts-table.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createMysqlNamespace } from '../../contract/backends/mysql.js';
import { createPostgresNamespace } from '../../contract/backends/postgres.js';
import { createSqliteNamespace } from '../../contract/backends/sqlite.js';

/**
 * An empty, isolated namespace on one SQL backend (temp SQLite file, PostgreSQL schema, MariaDB database).
 * `open()` makes a store on a NEW connection/pool each call; `drop()` closes them all and drops the namespace.
 */
export interface SqlNamespace {
  readonly dialect: SqlDialectName;
  /** The namespace as `payonce migrate --database-url` takes it. */
  readonly url: string;
  open<DB = ReceiptsDatabase>(): Promise<SqlStore<DB>>;
  drop(): Promise<void>;
}

function tracked(
  dialect: SqlDialectName,
  url: string,
  connect: () => Promise<SqlStore<unknown>>,
  dropNamespace: () => Promise<void>,
): SqlNamespace {
  const opened: SqlStore<unknown>[] = [];
  return {
    dialect,
    url,
    async open<DB>() {
      const store = await connect();
      opened.push(store);
      return store as unknown as SqlStore<DB>;
    },
    async drop() {
      await Promise.all(opened.map((store) => store.close()));
      await dropNamespace();
    },
  };
}

/** One factory per SQL dialect; a typed record, so a new dialect is a compile error here until it is tested. */
export const sqlNamespaces: Record<SqlDialectName, () => Promise<SqlNamespace>> = {
  async sqlite() {
    const ns = await createSqliteNamespace();
    return tracked('sqlite', ns.path, () => SqliteStore.open(ns.path), ns.drop);
  },
  async postgres() {
    const ns = await createPostgresNamespace();
    return tracked('postgres', ns.url, () => PostgresStore.connect(ns.config), ns.drop);
  },
  async mysql() {
    const ns = await createMysqlNamespace();
    return tracked('mysql', ns.url, () => MysqlStore.connect(ns.url), ns.drop);
  },
};

export const SQL_DIALECTS = Object.keys(sqlNamespaces) as SqlDialectName[];
