import { parseDatabaseUrl } from '../stores/database-url.js';
import { MysqlStore } from '../stores/mysql/mysql-store.js';
import { openSqlStore } from '../stores/open-sql-store.js';
import { PostgresStore } from '../stores/postgres/postgres-store.js';
import type { SqlStore } from '../stores/sql/sql-store.js';

/**
 * Opens the SQL store a database URL names (a SQLite file path or `sqlite:PATH` / `file:///PATH`,
 * `postgres://…`, `mysql://…`), as `payonce migrate` does; the caller owns it (`close()`). Not migrated.
 * `poolSize` is the most connections the PostgreSQL / MySQL pool opens (`pg` `max`, `mysql2` `connectionLimit`;
 * SQLite has one connection and ignores it); without it the driver's default (10 for both) applies.
 * @throws {InvalidDatabaseUrl} (an `InvalidOption` for `databaseUrl`) an unsupported or malformed URL.
 * @throws the driver's error when the database cannot be opened.
 */
export async function openServiceStore(databaseUrl: string, poolSize?: number): Promise<SqlStore<unknown>> {
  const target = parseDatabaseUrl(databaseUrl);
  if (poolSize !== undefined && target.dialect === 'postgres') {
    return (await PostgresStore.connect({
      connectionString: target.url,
      max: poolSize,
    })) as unknown as SqlStore<unknown>;
  }
  if (poolSize !== undefined && target.dialect === 'mysql') {
    return (await MysqlStore.connect({ uri: target.url, connectionLimit: poolSize })) as unknown as SqlStore<unknown>;
  }
  return (await openSqlStore(target)) as unknown as SqlStore<unknown>;
}
