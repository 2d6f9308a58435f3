import type { Kysely } from 'kysely';

/** The SQL backends payonce ships DDL and stores for. */
export type SqlDialectName = 'sqlite' | 'postgres' | 'mysql';

/** Every `SqlDialectName`, in a stable order. */
export const SQL_DIALECT_NAMES: readonly SqlDialectName[] = Object.freeze(['sqlite', 'postgres', 'mysql']);

/**
 * What differs between the SQL backends, declared once per backend so the store logic is written once and
 * never asks "which driver is this?".
 */
export interface SqlDialect {
  readonly name: SqlDialectName;
  /**
   * How a claim is inserted in ONE statement relying on the primary key: `on-conflict-do-nothing` (PostgreSQL,
   * SQLite: a duplicate must not raise, or it would abort the caller's PostgreSQL transaction) or
   * `plain-insert` (MySQL: a duplicate-key error 1062 means "already exists"; InnoDB rolls back only the
   * statement, never the caller's transaction).
   */
  readonly claimInsert: 'on-conflict-do-nothing' | 'plain-insert';
  /** True when the key columns are binary (MySQL VARBINARY): key parts are bound and read as UTF-8 bytes. */
  readonly binaryKeys: boolean;
  /**
   * Appended to the read that follows a lost claim inside a caller's transaction, or `null`. InnoDB's
   * REPEATABLE READ snapshot may predate the winner's commit; a locking read sees the latest committed row.
   */
  readonly lockingReadClause: string | null;
  /**
   * How long, in milliseconds, a non-transactional statement (or a whole outbox transaction) keeps being retried
   * after transient errors, asynchronously; `undefined`: a few quick retries only. SQLite stores opened by
   * `SqliteStore.open` set it to their `busyTimeoutMs`.
   */
  readonly retryBudgetMs?: number;
  /** Transient errors (deadlock, lock wait, busy) that a single non-transactional statement may retry. */
  isTransientError(error: unknown): boolean;
  /**
   * A statement that opens a transaction holding the database's write lock around the whole migration run, or
   * `null` when Kysely's `Migrator` locks by itself. SQLite: Kysely takes no migration lock there (one
   * connection per instance), so `begin immediate` keeps two processes from migrating one file at once.
   */
  readonly migrationTransaction: string | null;
  /**
   * The schema Kysely's `Migrator` must look for its own tables in, or `undefined` for the connection's
   * database. PostgreSQL introspection lists every schema, so it gets `current_schema()`.
   */
  migrationTableSchema(db: Kysely<unknown>): Promise<string | undefined>;
}
