/**
 * `payonce/tx/drizzle`: payonce's one-commit mode in a Drizzle transaction: the `tx` of
 * `db.transaction(async (tx) => …)` on node-postgres (`drizzle-orm/node-postgres`), postgres.js
 * (`drizzle-orm/postgres-js`) or mysql2 (`drizzle-orm/mysql2`), and on better-sqlite3 (`drizzle-orm/better-sqlite3`,
 * whose `db.transaction` is synchronous) the `db` itself inside `begin immediate`. Its own entry, apart from the
 * stores, so that only an application on Drizzle loads `drizzle-orm` through it. Drizzle's own queries stay
 * Drizzle's (its joins keep their columns): only payonce's statements go through the executor.
 * @see docs/your-stack.md "Drizzle (node-postgres)", "Drizzle (postgres.js, mysql2, better-sqlite3)".
 */
import { is, sql } from 'drizzle-orm';
import { MySqlDatabase, MySqlTransaction } from 'drizzle-orm/mysql-core';
import { PgDatabase, PgTransaction } from 'drizzle-orm/pg-core';
import { BaseSQLiteDatabase, SQLiteTransaction } from 'drizzle-orm/sqlite-core';
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import {
  betterSqliteClientOf,
  type DrizzleAsyncTransactionLike,
  type DrizzleBetterSqliteLike,
  type DrizzleTransactionLike,
  drizzleExecutor,
} from './drizzle-executor.js';
import { withClientErrorsHeld } from './pg-client-errors.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';
import { onSqliteConnection } from './sqlite-connection-queue.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type {
  BetterSqliteClientLike,
  BetterSqliteStatementLike,
  DrizzleAsyncTransactionLike,
  DrizzleBetterSqliteLike,
  DrizzleTransactionLike,
} from './drizzle-executor.js';
export { drizzleExecutor } from './drizzle-executor.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/**
 * Runs `work` with `trx`, the Drizzle transaction `tx` as a Kysely `Transaction` typed for `store`'s tables, for
 * payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions). `store` is
 * the payonce store on the same database.
 * @throws {InvalidOption} `tx` is not accepted (see `drizzleExecutor`), or `store` is not a SQL store of its dialect.
 * @throws whatever `work` throws.
 */
export async function withDrizzleTransaction<S extends JoinableStore, T>(
  store: S,
  tx: DrizzleTransactionLike,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, drizzleExecutor(tx), work);
}

/**
 * `guard.runInTransaction` in the application's Drizzle transaction `tx`: the receipt, `handler`'s Drizzle writes
 * and any outbox row enqueued with its third argument commit together when the transaction commits, or not at all
 * (a throw rolls the whole transaction back). `handler` gets `tx` itself, typed as the caller's. A duplicate inside a
 * transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress` (409).
 * @throws {InvalidOption} `tx` is not accepted (see `drizzleExecutor`), or the guard's store is not a SQL store of
 * its dialect.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "Drizzle (postgres.js, mysql2, better-sqlite3)".
 * @example
 * await db.transaction((tx) =>
 *   runInDrizzleTransaction(guard, tx, new RequestKey('stripe', event.id), async (tx) => {
 *     await tx.update(orders).set({ paid: true }).where(eq(orders.id, orderId));
 *   }),
 * );
 */
export async function runInDrizzleTransaction<S extends JoinableStore, X extends DrizzleTransactionLike>(
  guard: IdempotencyGuard<S>,
  tx: X,
  key: RequestKey,
  handler: JoinedHandler<X, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, drizzleExecutor(tx), tx, key, handler, options);
}

/** A Drizzle PostgreSQL or MySQL database (the part payonce uses): it opens transactions. */
export interface DrizzleDatabaseLike<X extends DrizzleAsyncTransactionLike> {
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: X) => Promise<T>): Promise<T>;
}

/**
 * One better-sqlite3 transaction at a time on `db`'s one connection, in the order asked (one queue per connection,
 * shared with every other opener of it: `onSqliteConnection`): `begin immediate`, `work` with `db`, `commit`;
 * `rollback` when `work` throws (unless SQLite already ended the transaction).
 */
function betterSqliteTransactions<D extends DrizzleBetterSqliteLike>(db: D): StackTransactions<D> {
  return {
    dialect: 'sqlite',
    stack: 'drizzle (better-sqlite3)',
    transaction: (work) =>
      onSqliteConnection(db.$client, async () => {
        db.run(sql.raw('begin immediate'));
        try {
          const result = await work(db, drizzleExecutor(db));
          db.run(sql.raw('commit'));
          return result;
        } catch (error) {
          if (db.$client.inTransaction) db.run(sql.raw('rollback'));
          throw error;
        }
      }),
  };
}

/**
 * Transactions of a Drizzle database for the parts of payonce that open one themselves (a one-commit webhook
 * endpoint, an Idempotency-Key route). On node-postgres, postgres.js and mysql2 each is
 * `db.transaction(async (tx) => …)` and the handler gets that `tx`. On better-sqlite3 (whose `db.transaction` cannot
 * hold asynchronous work) each is `begin immediate` … `commit` on `db`'s one connection, one at a time in the order
 * asked, and the handler gets `db`; any other statement the application runs on `db` meanwhile joins that
 * transaction, so an application on better-sqlite3 runs its writes through these transactions.
 * @throws {InvalidOption} `db` is a transaction, or not a Drizzle database of node-postgres, postgres.js, mysql2 or
 * better-sqlite3.
 */
export function drizzleTransactions<D extends DrizzleBetterSqliteLike>(db: D): StackTransactions<D>;
/**
 * Transactions of a Drizzle database of node-postgres, postgres.js or mysql2: each is
 * `db.transaction(async (tx) => …)`, and the handler gets that `tx` (see the better-sqlite3 overload above).
 * @throws {InvalidOption} `db` is a transaction, or not a Drizzle database of a supported driver.
 */
export function drizzleTransactions<X extends DrizzleAsyncTransactionLike>(
  db: DrizzleDatabaseLike<X>,
): StackTransactions<X>;
export function drizzleTransactions(
  db: DrizzleBetterSqliteLike | DrizzleDatabaseLike<DrizzleAsyncTransactionLike>,
): StackTransactions<DrizzleTransactionLike> {
  if (is(db, BaseSQLiteDatabase) && !is(db, SQLiteTransaction) && betterSqliteClientOf(db) !== undefined) {
    return betterSqliteTransactions(db as DrizzleBetterSqliteLike);
  }
  const dialect =
    is(db, PgDatabase) && !is(db, PgTransaction)
      ? 'postgres'
      : is(db, MySqlDatabase) && !is(db, MySqlTransaction)
        ? 'mysql'
        : undefined;
  if (dialect === undefined) {
    throw new InvalidOption(
      'db',
      'must be a Drizzle database (drizzle(…) of drizzle-orm/node-postgres, postgres-js, mysql2 or better-sqlite3)',
    );
  }
  const opener = db as DrizzleDatabaseLike<DrizzleAsyncTransactionLike>;
  return {
    dialect,
    stack: `drizzle (${dialect})`,
    transaction: (work) =>
      opener.transaction((tx) =>
        // node-postgres: the lent client's `error` event is listened for while the transaction runs.
        withClientErrorsHeld(sessionClientOf(tx), () => work(tx, drizzleExecutor(tx))),
      ),
  };
}

/** The driver client of a Drizzle transaction's session (node-postgres: the lent `PoolClient`), if any. */
function sessionClientOf(tx: unknown): unknown {
  return (tx as { _?: { session?: { client?: unknown } } } | null)?._?.session?.client;
}
