/**
 * `payonce/tx/better-sqlite3`: payonce's one-commit mode in a transaction the application opened itself on a
 * better-sqlite3 `Database`. better-sqlite3's own `db.transaction(fn)` is synchronous: it commits as soon as `fn`
 * returns, so it cannot hold payonce's asynchronous steps; the transaction is opened with
 * `db.exec('BEGIN IMMEDIATE')` and ended with `db.exec('COMMIT')` / `db.exec('ROLLBACK')` instead, by the
 * application or by `betterSqlite3Transactions(db)`. better-sqlite3 itself is never imported.
 * @see docs/your-stack.md "better-sqlite3".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';
import { onSqliteConnection } from './sqlite-connection-queue.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** What better-sqlite3's `statement.run()` answers (the part payonce reads). */
export interface BetterSqlite3RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  readonly changes: number;
  /** The rowid of the last row inserted on the connection. */
  readonly lastInsertRowid: number | bigint;
}

/** A better-sqlite3 `Statement` (the part payonce uses). */
export interface BetterSqlite3StatementLike {
  /** True when the statement returns rows (a SELECT, or a write with `RETURNING`). */
  readonly reader: boolean;
  /** Runs a reader statement and returns every row, one object per row keyed by column name. */
  all(...parameters: unknown[]): unknown[];
  /** Runs a statement that returns no rows. */
  run(...parameters: unknown[]): BetterSqlite3RunResult;
  /** `false`: integers come back as JS numbers, whatever the database's `defaultSafeIntegers` says. */
  safeIntegers(toggle: boolean): unknown;
}

/** A better-sqlite3 `Database` (the part payonce uses). */
export interface BetterSqlite3DatabaseLike {
  /** True while a transaction is open on the connection (better-sqlite3 reads SQLite's autocommit flag). */
  readonly inTransaction: boolean;
  /** Compiles one statement. */
  prepare(source: string): BetterSqlite3StatementLike;
  /** Runs SQL text without parameters (`BEGIN IMMEDIATE`, `COMMIT`, `ROLLBACK`). */
  exec(source: string): unknown;
}

const ACCEPTED = 'must be a better-sqlite3 Database (new Database(file))';
const NOT_OPEN =
  "has no open transaction: run db.exec('BEGIN IMMEDIATE') before (and db.exec('COMMIT') after), or use betterSqlite3Transactions(db)";

function checkDatabase(db: BetterSqlite3DatabaseLike): void {
  const candidate = db as Partial<BetterSqlite3DatabaseLike> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.prepare !== 'function' ||
    typeof candidate.exec !== 'function' ||
    typeof candidate.inTransaction !== 'boolean'
  ) {
    throw new InvalidOption('db', ACCEPTED);
  }
}

/**
 * The executor seam over `db`, a better-sqlite3 `Database` with a transaction open on it (`BEGIN IMMEDIATE`):
 * payonce's statements (SQLite dialect, `?` placeholders) run with `db.prepare(text)`, then `.all(...parameters)`
 * for a statement that returns rows (`reader`), else `.run(...parameters)`, whose `changes` is `numAffectedRows` and
 * `lastInsertRowid` is `insertId`. Parameters are bound as they come, as payonce's `SqliteStore` binds them
 * (Kysely's SQLite driver: strings, numbers, bigints, `Uint8Array`s and `null`); integers are read as numbers
 * (`safeIntegers(false)` on each statement), so a database set to `defaultSafeIntegers(true)` still gives payonce what
 * it reads.
 * Every statement checks `db.inTransaction` first: without an open transaction each statement would commit on its
 * own, and nothing would commit together.
 * @throws {InvalidOption} `db` is not a better-sqlite3 `Database`, or has no open transaction (when made, and at each
 * statement).
 * @see better-sqlite3 docs/api.md (`Database#prepare`, `Statement#reader`, `Statement#run`, `Database#inTransaction`).
 */
export function betterSqlite3Executor(db: BetterSqlite3DatabaseLike): SqlExecutor {
  checkDatabase(db);
  if (!db.inTransaction) throw new InvalidOption('db', NOT_OPEN);
  return {
    dialect: 'sqlite',
    // `db.inTransaction` is checked before every statement: the database file is checked once per connection.
    isOpen: () => db.inTransaction,
    origin: db,
    async execute(sql, parameters) {
      if (!db.inTransaction) throw new InvalidOption('db', NOT_OPEN);
      const statement = db.prepare(sql);
      statement.safeIntegers(false);
      if (statement.reader) return { rows: statement.all(...parameters) };
      const { changes, lastInsertRowid } = statement.run(...parameters);
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    },
  };
}

/**
 * Runs `work` with `trx`, the application's open transaction on `db` as a Kysely `Transaction` typed for `store`'s
 * tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions).
 * `store` is the payonce `SqliteStore` on the same file.
 * @throws {InvalidOption} `db` is not a `Database` with an open transaction, or `store` is not a SQLite store.
 * @throws whatever `work` throws.
 * @example
 * db.exec('BEGIN IMMEDIATE');
 * await withBetterSqlite3Transaction(store, db, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${id}`, { id }));
 * db.exec('COMMIT');
 */
export async function withBetterSqlite3Transaction<S extends JoinableStore, T>(
  store: S,
  db: BetterSqlite3DatabaseLike,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, betterSqlite3Executor(db), work);
}

/**
 * `guard.runInTransaction` in the application's own transaction on `db` (after `db.exec('BEGIN IMMEDIATE')`): the
 * receipt, `handler`'s writes on `db` and any outbox row enqueued with its third argument commit together at
 * `db.exec('COMMIT')`, or not at all. `handler` gets `db` itself. `BEGIN IMMEDIATE` (not a plain `BEGIN`) takes the
 * write lock at once, so two connections cannot deadlock upgrading their read locks. A duplicate inside a
 * transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress` (HTTP 409).
 * One connection holds one transaction at a time: calls that may overlap on the same `db` go through
 * `betterSqlite3Transactions(db)`, which queues them.
 * @throws {InvalidOption} `db` is not a `Database` with an open transaction, or the guard's store is not SQLite.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws (then `ROLLBACK`).
 * @see docs/your-stack.md "better-sqlite3".
 * @example
 * db.exec('BEGIN IMMEDIATE');
 * await runInBetterSqlite3Transaction(guard, db, new RequestKey('stripe', event.id), async (db) => {
 *   db.prepare('update orders set paid = 1 where id = ?').run(orderId);
 * });
 * db.exec('COMMIT');
 */
export async function runInBetterSqlite3Transaction<S extends JoinableStore, C extends BetterSqlite3DatabaseLike>(
  guard: IdempotencyGuard<S>,
  db: C,
  key: RequestKey,
  handler: JoinedHandler<C, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, betterSqlite3Executor(db), db, key, handler, options);
}

/**
 * Transactions of a better-sqlite3 `Database` for the parts of payonce that open one themselves (a one-commit
 * webhook endpoint, an Idempotency-Key route): each is `BEGIN IMMEDIATE`, the work, `COMMIT`, or `ROLLBACK` and a
 * rethrow of the error when the work (or the commit) throws. SQLite has one transaction per connection and no nested
 * `BEGIN`, so the transactions of one `db` are serialized: a second `transaction()` waits until the first has
 * committed or rolled back (one queue per `db`, shared by every opener made for it, `drizzleTransactions` of a Drizzle
 * database on it included; transactions the application
 * begins itself on the same `db` are not in the queue and must not overlap these).
 * @throws {InvalidOption} `db` is not a better-sqlite3 `Database`.
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: betterSqlite3Transactions(db), … } } })
 */
export function betterSqlite3Transactions<C extends BetterSqlite3DatabaseLike>(db: C): StackTransactions<C> {
  checkDatabase(db);
  return {
    dialect: 'sqlite',
    stack: 'better-sqlite3',
    async transaction(work) {
      return await onSqliteConnection(db, async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(db, betterSqlite3Executor(db));
          db.exec('COMMIT');
          return result;
        } catch (error) {
          // SQLite rolls some failures back on its own (SQLITE_FULL, an interrupted statement). A failed ROLLBACK
          // leaves the transaction open: the next BEGIN then fails with SQLite's own error; the work's error wins.
          try {
            if (db.inTransaction) db.exec('ROLLBACK');
          } catch {}
          throw error;
        }
      });
    },
  };
}
