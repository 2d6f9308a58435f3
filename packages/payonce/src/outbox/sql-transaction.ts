import type { IsolationLevel, Kysely, Transaction } from 'kysely';
import type { StatementCache } from '../stores/sql/compiled-statement.js';
import { withRetry } from '../stores/sql/retry.js';
import type { SqlDialect } from '../stores/sql/sql-dialect.js';
import { inOwnTransaction } from '../stores/sql/transaction-connection.js';

/**
 * The two things payments and outbox code need from a SQL store: its Kysely instance and its dialect; and, on a
 * store, its compiled statements (`SqlStore.statements`), which the outbox then shares instead of compiling its own.
 */
export interface SqlTarget<DB> {
  readonly db: Kysely<DB>;
  readonly dialect: SqlDialect;
  readonly statements?: StatementCache;
  /**
   * The schema (PostgreSQL) or database (MySQL) of payonce's tables, qualified in every statement; a store's own
   * `schema` option. `null`/absent: the connection's. Your own tables in a transaction stay unqualified.
   */
  readonly schema?: string | null;
  /**
   * What payonce's table names start with instead of `payonce_`; a store's own `tablePrefix` option
   * (`SqlStoreOptions.tablePrefix`). `null`/absent: `payonce_`.
   */
  readonly tablePrefix?: string | null;
}

/**
 * Runs `fn` in ONE database transaction on `target.db` and retries the WHOLE transaction (never one statement
 * of it) after a transient error of the dialect (deadlock, lock wait timeout, SQLITE_BUSY), with the shared
 * jittered back-off of the SQL stores (also when the error is the `cause` of the guard's `StoreUnavailable`). `fn` must therefore only write to the database (no network calls).
 * On SQLite, start `fn` with a write so two connections cannot deadlock upgrading read locks. `isolation` sets the
 * isolation level of each try's transaction (`SET TRANSACTION ISOLATION LEVEL` before `BEGIN`); absent: the
 * connection's default.
 */
export function transaction<DB, T>(
  target: SqlTarget<DB>,
  fn: (tx: Transaction<DB>) => Promise<T>,
  isolation?: IsolationLevel,
): Promise<T> {
  return withRetry(
    () => {
      const builder = target.db.transaction();
      const chosen = isolation === undefined ? builder : builder.setIsolationLevel(isolation);
      return inOwnTransaction(chosen, fn);
    },
    (error) => isTransient(target.dialect, error),
    true,
    target.dialect.retryBudgetMs,
  );
}

/** A transient error of the dialect, bare or as the `cause` of a wrapper (the guard's `StoreUnavailable`). */
function isTransient(dialect: SqlDialect, error: unknown): boolean {
  if (dialect.isTransientError(error)) return true;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause !== undefined && dialect.isTransientError(cause);
}

/** A safe integer from a BIGINT column (`pg` returns strings, better-sqlite3 may return `bigint`). */
export function intOf(value: number | string | bigint, column: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${column} is not a safe integer: ${String(value)}`);
  return n;
}

/** Like {@link intOf}, keeping `null`. */
export function intOrNull(value: number | string | bigint | null, column: string): number | null {
  return value === null ? null : intOf(value, column);
}
