import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import { withRetry } from '../sql/retry.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';

/** A statement that ends a transaction: SQLite allows retrying it after SQLITE_BUSY. */
const COMMIT = /^\s*(commit|end)\b/i;

/**
 * A connection of a `SqliteStore.open` store as Kysely sees it (the application's own queries through `store.db`,
 * `db.transaction()`, migrations): a statement that fails with SQLITE_BUSY is retried with timers (jittered
 * back-off, 5 ms doubling to 200 ms) until `lockWaitMs` milliseconds have passed, so it waits for another
 * connection's write lock as long as the store's own statements do, and never blocks the event loop (the
 * connection's synchronous `busy_timeout` is kept at 20 ms). Only where SQLite says a retry is safe
 * (sqlite.org/rescode.html#busy): a statement run outside a transaction (including `BEGIN IMMEDIATE`) and
 * `COMMIT`; a statement inside a transaction fails at once, so the caller rolls back. The last error is rethrown.
 */
export class BusyWaitingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #lockWaitMs: number;
  readonly #inTransaction: () => boolean;

  /**
   * @param inner the driver's connection.
   * @param lockWaitMs how long, in milliseconds, a statement may keep retrying SQLITE_BUSY.
   * @param inTransaction whether the connection has a transaction open (better-sqlite3 `database.inTransaction`).
   */
  constructor(inner: DatabaseConnection, lockWaitMs: number, inTransaction: () => boolean) {
    this.#inner = inner;
    this.#lockWaitMs = lockWaitMs;
    this.#inTransaction = inTransaction;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const retryable = !this.#inTransaction() || COMMIT.test(query.sql);
    return withRetry(
      () => this.#inner.executeQuery<R>(query),
      (error) => sqliteDialect.isTransientError(error),
      retryable,
      this.#lockWaitMs,
    );
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}
