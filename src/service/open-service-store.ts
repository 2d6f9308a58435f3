import { parseDatabaseUrl } from '../stores/database-url.js';
import { openSqlStore } from '../stores/open-sql-store.js';
import type { SqlStore } from '../stores/sql/sql-store.js';

/**
 * Opens the SQL store a database URL names (a SQLite file path or `sqlite:PATH` / `file:///PATH`,
 * `postgres://…`, `mysql://…`), as `payonce migrate` does; the caller owns it (`close()`). Not migrated.
 * @throws {InvalidDatabaseUrl} (an `InvalidOption` for `databaseUrl`) an unsupported or malformed URL.
 * @throws the driver's error when the database cannot be opened.
 */
export async function openServiceStore(databaseUrl: string): Promise<SqlStore<unknown>> {
  return (await openSqlStore(parseDatabaseUrl(databaseUrl))) as unknown as SqlStore<unknown>;
}
