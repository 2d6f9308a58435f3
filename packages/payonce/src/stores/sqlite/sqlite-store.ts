import { Kysely } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { importPeer } from '../../core/import-peer.js';
import { positiveInt, timerMs } from '../../core/options.js';
import type { ReceiptsDatabase } from '../sql/receipts-table.js';
import { SqlStore, type SqlStoreOptions } from '../sql/sql-store.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import { checkTablePrefix } from '../sql/table-prefix.js';
import { ExclusiveConnectionDialect, ExclusiveConnectionDriver } from './exclusive-connection-driver.js';
import { statementCache } from './statement-cache.js';

/** Longest synchronous busy wait of one better-sqlite3 statement, ms; the rest of the wait is asynchronous. */
const BLOCKING_BUSY_WAIT_MS = 20;

/** Options of `SqliteStore.open`. */
export interface SqliteOpenOptions {
  /**
   * How long a statement of the store waits for another connection's write lock, in milliseconds, before it
   * fails with SQLITE_BUSY (the guard then reports `StoreUnavailable`). The wait never blocks the event loop:
   * better-sqlite3's own busy wait is synchronous, so it is kept to 20 ms (`PRAGMA busy_timeout`) and the store
   * retries asynchronously with back-off until `busyTimeoutMs` has passed; a second store on the same file in
   * the same process (whose lock cannot be released while this one busy-waits) no longer stalls the process.
   * The application's own statements through `store.db` wait the same way (outside a transaction, `BEGIN
   * IMMEDIATE` — every `store.db.transaction()` starts with it — and `COMMIT`; issue 34 item 5).
   * Positive integer. @default 5_000
   */
  busyTimeoutMs?: number;
  /**
   * Use `synchronous=NORMAL` instead of FULL: faster commits, but with WAL the last committed receipts may be
   * lost on power failure or OS crash (never on a process crash), and a lost receipt lets a redelivery run
   * the handler again. @default false
   */
  unsafeSynchronousNormal?: boolean;
  /** What payonce's table names start with instead of `payonce_`. @see SqlStoreOptions.tablePrefix @default 'payonce_' */
  tablePrefix?: string;
}

/**
 * Receipts in a SQLite database through Kysely and better-sqlite3 12. Every claim is one
 * `INSERT … ON CONFLICT DO NOTHING`; several processes may share one file (WAL, busy timeout, bounded retry
 * of SQLITE_BUSY outside transactions). Create the table with `store.migrate()`, `payonce migrate` or
 * `schema('sqlite')`.
 *
 * `new SqliteStore({ db })` uses the application's `Kysely` (with a `SqliteDialect`) and leaves it open on
 * `close()`; `SqliteStore.open(path)` opens and owns the file. In `runInTransaction`, start the caller's
 * transaction with a write (or `BEGIN IMMEDIATE`) so two connections cannot deadlock upgrading read locks.
 * @see docs/design.md §2–3; issue 2 "SqliteStore".
 * @example
 * const store = await SqliteStore.open('payonce.db');
 * await store.migrate();
 * const guard = new IdempotencyGuard(store);
 */
export class SqliteStore<DB = ReceiptsDatabase> extends SqlStore<DB> {
  /**
   * Wraps the caller's Kysely instance (any database type, `SqliteDialect`). Nothing is opened or owned. With
   * `lockWaitMs`, SQLITE_BUSY is retried asynchronously for that many milliseconds (set the connection's own
   * `busy_timeout` short then); without it, a few quick retries only.
   * `batching` must be absent or `false`: better-sqlite3 runs every statement synchronously on the one connection,
   * so no call ever waits behind a statement in flight and a batch would always hold one row (docs/design.md §3
   * "Batched claims and completions").
   * @throws {InvalidOption} a `lockWaitMs` that is not a positive integer, `batching` other than `false`, or any
   *   `schema` (SQLite has none: name payonce's tables with `tablePrefix`), or an invalid `tablePrefix`.
   */
  constructor(options: SqlStoreOptions<DB> & { readonly lockWaitMs?: number }) {
    const wait = options.lockWaitMs;
    if (wait !== undefined) timerMs('lockWaitMs', wait);
    super(
      options.db,
      wait === undefined ? sqliteDialect : Object.freeze({ ...sqliteDialect, retryBudgetMs: wait }),
      options.batching,
      options.schema,
      options.tablePrefix,
    );
  }

  /**
   * Opens (creating if missing) the SQLite file at `path` with `journal_mode=WAL`, a lock wait of `busyTimeoutMs`
   * (default 5 000 ms, spent in asynchronous retries, never blocking the event loop) and `synchronous=FULL`, and returns a store that owns it: `close()` closes the file. Prepared
   * statements are reused across executions (the 64 most recent SQL texts), and the store's own statements run
   * straight on the connection when no transaction or query holds it (`ExclusiveConnectionDriver`).
   * @param path a file path (`:memory:` works but is private to this connection).
   * @throws {InvalidOption} for an empty path or a bad option.
   * @throws {MissingPeer} better-sqlite3 is not installed (the message gives the `npm install` line).
   * @throws the better-sqlite3 error if the file cannot be opened (missing directory, not a database).
   */
  static async open<DB = ReceiptsDatabase>(path: string, options: SqliteOpenOptions = {}): Promise<SqliteStore<DB>> {
    if (typeof path !== 'string' || path.length === 0) throw new InvalidOption('path', 'must be a non-empty file path');
    const busyTimeoutMs = positiveInt('busyTimeoutMs', options.busyTimeoutMs ?? 5_000);
    checkTablePrefix(options.tablePrefix);
    const { default: Database } = await importPeer('better-sqlite3', 'SqliteStore', () => import('better-sqlite3'));
    // better-sqlite3 busy-waits synchronously: keep each wait short, the store retries asynchronously.
    const blockingWaitMs = Math.min(busyTimeoutMs, BLOCKING_BUSY_WAIT_MS);
    const database = new Database(path, { timeout: blockingWaitMs });
    try {
      database.pragma(`busy_timeout = ${blockingWaitMs}`);
      database.pragma('journal_mode = WAL');
      database.pragma(`synchronous = ${options.unsafeSynchronousNormal ? 'NORMAL' : 'FULL'}`);
    } catch (error) {
      database.close();
      throw error;
    }
    const cached = statementCache(database);
    const driver = new ExclusiveConnectionDriver(cached, {
      lockWaitMs: busyTimeoutMs,
      inTransaction: () => database.inTransaction,
    });
    const db = new Kysely<DB>({ dialect: new ExclusiveConnectionDialect(driver, cached) });
    const store = new SqliteStore<DB>({ db, lockWaitMs: busyTimeoutMs, tablePrefix: options.tablePrefix });
    store.runStatementsDirectly(driver.runStatement);
    store.release = async () => {
      await db.destroy();
      if (database.open) database.close();
    };
    return store;
  }
}
