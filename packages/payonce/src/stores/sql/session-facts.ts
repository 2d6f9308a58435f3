import { driverErrorCodes } from './driver-error.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import type { SqlDialectName } from './sql-dialect.js';
import { qualifiedTable } from './table-namespace.js';
import { DEFAULT_TABLE_PREFIX, prefixedName } from './table-prefix.js';

/**
 * What one database session says of itself, read with one statement: whether it is inside an open transaction
 * block, and where payonce's receipts live as it sees them. Compared between a caller's transaction and the
 * guard's store, it tells a transaction object whose transaction has ended, and a transaction on another database
 * or search_path (its own copy of payonce's tables: the receipts would split between two copies).
 */
export interface SessionFacts {
  /**
   * `false`: the session is outside any transaction block; `null`: the dialect cannot tell by SQL (SQLite, MySQL).
   * PostgreSQL tells only after {@link POSTGRES_PROBE}.
   */
  readonly inTransaction: boolean | null;
  /** Where the session's `payonce_receipts` is, as comparable text; `null` where it cannot be told (in-memory SQLite). */
  readonly place: string | null;
  /** The same place in words, for messages: database, schema or file. */
  readonly described: string;
}

/** Runs one statement on a session (a caller's transaction, or the store's pool) and gives back its rows. */
export type RunStatement = (
  sql: string,
  parameters: readonly unknown[],
) => Promise<{ readonly rows: readonly unknown[] }>;

/**
 * PostgreSQL: the session's transaction-local probe (see {@link POSTGRES_PROBE}) is still set only inside a
 * transaction block; the receipts table's oid (resolved by the same name the store uses: qualified by its schema, or
 * through the search_path), with the database and the server's start time, names the one copy of the table this
 * session writes to.
 */
const POSTGRES_FACTS =
  "select coalesce(current_setting('payonce.open_probe', true), '') = 'open' as in_transaction, " +
  'current_database() as database, to_regclass($1)::oid::text as receipts, ' +
  'pg_postmaster_start_time()::text as server';

/**
 * PostgreSQL has no function that tells a transaction block (the timestamps differ outside one too under the
 * extended protocol), so a transaction-local setting is made first: outside a block the statement is its own
 * transaction and the setting is gone when it ends; inside one it lasts until COMMIT / ROLLBACK.
 * @see PostgreSQL docs, "System Administration Functions" (set_config with is_local = true).
 */
export const POSTGRES_PROBE = "select set_config('payonce.open_probe', 'open', true)";

/** MariaDB: `@@in_transaction` is 1 between BEGIN and COMMIT/ROLLBACK. MySQL has no such variable (see below). */
const MARIADB_FACTS = 'select @@in_transaction as in_transaction, database() as db, @@hostname as host, @@port as port';
const MYSQL_FACTS = 'select null as in_transaction, database() as db, @@hostname as host, @@port as port';

/** SQLite: the file of the `main` database (`''` for an in-memory or temporary one). */
const SQLITE_FACTS = "select file from pragma_database_list where name = 'main'";

/** MySQL/MariaDB "unknown system variable": a MySQL server, which has no `@@in_transaction`. */
const UNKNOWN_SYSTEM_VARIABLE = 1193;

/** Servers that answered `UNKNOWN_SYSTEM_VARIABLE` once are asked without `@@in_transaction` from then on. */
let mysqlHasInTransaction = true;

/** A driver's truth value (PostgreSQL boolean, MySQL 0/1 as a number, bigint or string) as a boolean; null for null. */
function truth(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value === 't' || value === 'true' || (value !== '' && Number(value) !== 0);
  return Number(value) !== 0;
}

function firstRow(rows: readonly unknown[]): Record<string, unknown> {
  return (rows[0] ?? {}) as Record<string, unknown>;
}

async function postgresFacts(run: RunStatement, schema: string | null, tablePrefix: string): Promise<SessionFacts> {
  const table = qualifiedTable('postgres', schema, RECEIPTS_TABLE, tablePrefix);
  const row = firstRow((await run(POSTGRES_FACTS, [table])).rows);
  const name = prefixedName(tablePrefix, RECEIPTS_TABLE);
  const database = String(row.database);
  const receipts = row.receipts === null || row.receipts === undefined ? 'none' : String(row.receipts);
  return {
    inTransaction: truth(row.in_transaction),
    place: `${database}|${receipts}|${String(row.server)}`,
    described:
      receipts === 'none'
        ? `database "${database}", where no ${name} table is visible${schema === null ? ' on the search_path' : ` in schema "${schema}"`}`
        : `database "${database}" (${name} with oid ${receipts})`,
  };
}

async function mysqlFacts(run: RunStatement, schema: string | null): Promise<SessionFacts> {
  let rows: readonly unknown[];
  try {
    rows = (await run(mysqlHasInTransaction ? MARIADB_FACTS : MYSQL_FACTS, [])).rows;
  } catch (error) {
    if (!mysqlHasInTransaction || driverErrorCodes(error).errno !== UNKNOWN_SYSTEM_VARIABLE) throw error;
    mysqlHasInTransaction = false;
    rows = (await run(MYSQL_FACTS, [])).rows;
  }
  const row = firstRow(rows);
  const database = schema ?? (row.db === null || row.db === undefined ? '' : String(row.db));
  const server = `${String(row.host)}:${String(row.port)}`;
  return {
    inTransaction: truth(row.in_transaction),
    place: `${database}|${server}`,
    described: `database "${database}" on ${server}`,
  };
}

async function sqliteFacts(run: RunStatement): Promise<SessionFacts> {
  const file = String(firstRow((await run(SQLITE_FACTS, [])).rows).file ?? '');
  return {
    inTransaction: null,
    place: file === '' ? null : file,
    described: file === '' ? 'an in-memory database' : `database file ${file}`,
  };
}

/**
 * Reads the {@link SessionFacts} of the session `run` speaks to, in `dialect`, for payonce's tables in `schema`
 * (`null`: the connection's own search_path or database) named with `tablePrefix` (default `payonce_`). On PostgreSQL `inTransaction` is meaningful only after
 * {@link POSTGRES_PROBE} ran on the same session.
 * @throws the driver's error of the one statement, unchanged.
 */
export async function readSessionFacts(
  dialect: SqlDialectName,
  run: RunStatement,
  schema: string | null,
  tablePrefix: string = DEFAULT_TABLE_PREFIX,
): Promise<SessionFacts> {
  if (dialect === 'postgres') return await postgresFacts(run, schema, tablePrefix);
  if (dialect === 'mysql') return await mysqlFacts(run, schema);
  return await sqliteFacts(run);
}
