import { StoreSchemaMissing } from '../../core/errors.js';
import { driverErrorCodes } from './driver-error.js';
import type { SqlDialectName } from './sql-dialect.js';

/** How deep the driver's error is looked for under the errors wrapping it (an ORM's around a driver's). */
const MAX_CAUSE_DEPTH = 4;

/** PostgreSQL SQLSTATE 42P01 `undefined_table`, 3F000 `invalid_schema_name`. */
const POSTGRES_CODES: ReadonlySet<unknown> = new Set(['42P01', '3F000']);
/** MySQL/MariaDB errno 1146 `ER_NO_SUCH_TABLE`, 1049 `ER_BAD_DB_ERROR` (unknown database), and their codes. */
const MYSQL_ERRNOS: ReadonlySet<unknown> = new Set([1146, 1049]);
const MYSQL_CODES: ReadonlySet<unknown> = new Set(['ER_NO_SUCH_TABLE', 'ER_BAD_DB_ERROR']);
/** SQLite's message (better-sqlite3: `SqliteError`, code `SQLITE_ERROR`): `no such table: main.payonce_receipts`. */
const SQLITE_NO_SUCH_TABLE = /^no such table: (\S+)/;
/** The first quoted name of a server's message: `relation "payonce.payonce_receipts" does not exist`, `Table 'd.t' …`. */
const QUOTED = /["'`]([^"'`]+)["'`]/;

/** What `error` itself (not its causes) says is missing, or `undefined` when it is another error. */
function missingOf(error: unknown): { readonly name: string | null } | undefined {
  const { code, errno } = driverErrorCodes(error);
  const message = error instanceof Error ? error.message : '';
  if (POSTGRES_CODES.has(code) || MYSQL_ERRNOS.has(errno) || MYSQL_CODES.has(code)) {
    return { name: QUOTED.exec(message)?.[1] ?? null };
  }
  const sqlite = typeof code === 'string' && code.startsWith('SQLITE_') ? SQLITE_NO_SUCH_TABLE.exec(message) : null;
  return sqlite ? { name: sqlite[1] ?? null } : undefined;
}

/**
 * The `StoreSchemaMissing` a driver error (or one of its `cause`s) of a `dialect` store whose `schema` option is
 * `schema` stands for: PostgreSQL 42P01 / 3F000, MySQL/MariaDB 1146 / 1049, SQLite `no such table`; `null` for any
 * other error. The SQL stores answer `Store.schemaError` with it.
 * @example schemaMissingOf(Object.assign(new Error('relation "payonce_receipts" does not exist'), { code: '42P01' }), 'postgres', null)
 */
export function schemaMissingOf(
  error: unknown,
  dialect: SqlDialectName,
  schema: string | null,
): StoreSchemaMissing | null {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    const missing = missingOf(current);
    if (missing !== undefined) return new StoreSchemaMissing(dialect, missing.name, schema, error);
    current = current instanceof Error ? current.cause : undefined;
  }
  return null;
}
