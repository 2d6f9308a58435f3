import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { MysqlStore } from 'payonce/internal/stores/mysql/mysql-store.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import { PostgresStore } from 'payonce/internal/stores/postgres/postgres-store.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';

/**
 * Opens the SQL store a database URL names (a SQLite file path or `sqlite:PATH` / `file:///PATH`,
 * `postgres://…`, `mysql://…`), as `payonce migrate` does; the caller owns it (`close()`). Not migrated.
 * `poolSize` is the most connections the PostgreSQL / MySQL pool opens (`pg` `max`, `mysql2` `connectionLimit`;
 * SQLite has one connection and ignores it); without it the driver's default (10 for both) applies.
 * `waitMs` bounds, in milliseconds, opening a connection (`pg` `connectionTimeoutMillis`, which also bounds the
 * wait for a pooled connection; `mysql2` `connectTimeout`) and each statement and wait for a pooled connection
 * (`pg` `query_timeout`; MySQL `queryTimeoutMs`, which destroys the connection of a statement that outlives it), so a
 * database that accepts TCP but never answers (a silent firewall drop, a frozen host) fails the statement instead of
 * hanging it. Without it the drivers' defaults apply (no bound on statements, 10 s to connect
 * on MySQL). `schema` and `tablePrefix` name payonce's tables (`SqlStoreOptions.schema`, `.tablePrefix`);
 * `preparedStatements` (PostgreSQL) sends statements as named prepared statements
 * (`PostgresConnectOptions.preparedStatements`).
 * @throws {InvalidDatabaseUrl} (an `InvalidOption` for `databaseUrl`) an unsupported or malformed URL.
 * @throws the driver's error when the database cannot be opened.
 */
export async function openServiceStore(
  databaseUrl: string,
  poolSize?: number,
  waitMs?: number,
  schema?: string | null,
  tablePrefix?: string | null,
  preparedStatements = false,
): Promise<SqlStore<unknown>> {
  const target = parseDatabaseUrl(databaseUrl);
  const namespace = {
    ...(schema === null || schema === undefined ? {} : { schema }),
    ...(tablePrefix === null || tablePrefix === undefined ? {} : { tablePrefix }),
  };
  if (target.dialect === 'postgres' && (poolSize !== undefined || waitMs !== undefined || preparedStatements)) {
    return (await PostgresStore.connect(
      {
        connectionString: target.url,
        ...(poolSize === undefined ? {} : { max: poolSize }),
        ...(waitMs === undefined ? {} : { connectionTimeoutMillis: waitMs, query_timeout: waitMs }),
      },
      { ...namespace, preparedStatements },
    )) as unknown as SqlStore<unknown>;
  }
  if (target.dialect === 'mysql' && (poolSize !== undefined || waitMs !== undefined)) {
    return (await MysqlStore.connect(
      {
        uri: target.url,
        ...(poolSize === undefined ? {} : { connectionLimit: poolSize }),
        ...(waitMs === undefined ? {} : { connectTimeout: waitMs, queryTimeoutMs: waitMs }),
      },
      namespace,
    )) as unknown as SqlStore<unknown>;
  }
  return (await openSqlStore(target, namespace)) as unknown as SqlStore<unknown>;
}
