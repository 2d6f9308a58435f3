import type { DatabaseTarget } from './database-url.js';
import { MysqlStore } from './mysql/mysql-store.js';
import { PostgresStore } from './postgres/postgres-store.js';
import type { ReceiptsDatabase } from './sql/receipts-table.js';
import type { SqlStore } from './sql/sql-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/**
 * Opens the SQL store `target` names, owning its connection (call `close()`). Drivers are imported lazily, so
 * only the driver of the chosen database needs to be installed.
 * @throws the driver's error when the SQLite file cannot be opened.
 */
export async function openSqlStore(target: DatabaseTarget): Promise<SqlStore<ReceiptsDatabase>> {
  switch (target.dialect) {
    case 'sqlite':
      return SqliteStore.open(target.path);
    case 'postgres':
      return PostgresStore.connect(target.url);
    case 'mysql':
      return MysqlStore.connect(target.url);
  }
}
