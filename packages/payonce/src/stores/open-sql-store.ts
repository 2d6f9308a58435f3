import type { DatabaseTarget } from './database-url.js';
import { MysqlStore } from './mysql/mysql-store.js';
import { PostgresStore } from './postgres/postgres-store.js';
import type { ReceiptsDatabase } from './sql/receipts-table.js';
import type { SqlStore } from './sql/sql-store.js';
import { checkSchema } from './sql/table-namespace.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/**
 * Opens the SQL store `target` names, owning its connection (call `close()`). Drivers are imported lazily, so
 * only the driver of the chosen database needs to be installed.
 * `options.schema`: the namespace of payonce's tables (`SqlStoreOptions.schema`); `options.tablePrefix`: what their
 * names start with instead of `payonce_` (`SqlStoreOptions.tablePrefix`).
 * @throws {InvalidOption} (`schema`) an invalid name, or any on SQLite; (`tablePrefix`) an invalid prefix; before
 *   anything is opened.
 * @throws the driver's error when the SQLite file cannot be opened.
 */
export async function openSqlStore(
  target: DatabaseTarget,
  options: { readonly schema?: string; readonly tablePrefix?: string } = {},
): Promise<SqlStore<ReceiptsDatabase>> {
  const { schema, tablePrefix } = options;
  switch (target.dialect) {
    case 'sqlite':
      checkSchema(schema, 'sqlite');
      return SqliteStore.open(target.path, { tablePrefix });
    case 'postgres':
      return PostgresStore.connect(target.url, { schema, tablePrefix });
    case 'mysql':
      return MysqlStore.connect(target.url, { schema, tablePrefix });
  }
}
