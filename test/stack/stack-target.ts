import { sql } from 'kysely';
import { MysqlStore } from '../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../contract/backends/postgres.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';

/** The databases the stack suite runs on. */
export type StackDatabase = 'postgres' | 'mysql' | 'sqlite';

/**
 * Where one adapter's run of the suite keeps its tables: PostgreSQL `url` + `schema` (the adapter sets
 * `search_path` to it), MariaDB `url` of its own database, SQLite `url` = the file's path.
 */
export interface StackTarget {
  readonly database: StackDatabase;
  readonly url: string;
  /** PostgreSQL only: the schema holding payonce's and the business tables. */
  readonly schema?: string;
}

/** The payonce store the suite uses: a SQL store of the target's database. */
export type StackStore = SqlStore<ReceiptsDatabase>;

/** The business tables of the suite, created with SQL: customers and orders both have an `id` (the join case). */
export function businessTables(database: StackDatabase): string[] {
  const text = database === 'mysql' ? 'varchar(64)' : 'text';
  const flag = database === 'postgres' ? 'boolean not null default false' : 'integer not null default 0';
  return [
    `create table stack_customers (id ${text} primary key, name ${text} not null)`,
    `create table stack_orders (id ${text} primary key, customer_id ${text} not null references stack_customers (id), paid ${flag})`,
    `create table stack_effects (event_id ${text} not null)`,
  ];
}

/** A store of payonce on `target` (a new pool / connection). */
export async function connectStackStore(target: StackTarget): Promise<StackStore> {
  if (target.database === 'postgres') {
    return await PostgresStore.connect({ connectionString: target.url, options: `-c search_path=${target.schema}` });
  }
  if (target.database === 'mysql') return await MysqlStore.connect(target.url);
  return await SqliteStore.open(target.url);
}

/** A fresh namespace on `database`, migrated, with the business tables: the target, a store on it, `drop()`. */
export async function openStackFixture(
  database: StackDatabase,
): Promise<{ target: StackTarget; store: StackStore; drop(): Promise<void> }> {
  const namespace =
    database === 'postgres'
      ? await createPostgresNamespace().then((ns) => ({
          target: { database, url: POSTGRES_TEST_URL, schema: ns.schema },
          drop: ns.drop,
        }))
      : database === 'mysql'
        ? await createMysqlNamespace().then((ns) => ({ target: { database, url: ns.url }, drop: ns.drop }))
        : await createSqliteNamespace().then((ns) => ({ target: { database, url: ns.path }, drop: ns.drop }));
  const store = await connectStackStore(namespace.target);
  await store.migrate();
  for (const statement of businessTables(database)) await sql.raw(statement).execute(store.db);
  return {
    target: namespace.target,
    store,
    async drop() {
      await store.close();
      await namespace.drop();
    },
  };
}
