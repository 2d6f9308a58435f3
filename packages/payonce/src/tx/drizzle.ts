/**
 * `payonce/tx/drizzle`: payonce's one-commit mode in a Drizzle transaction (`db.transaction(async (tx) => …)`) on
 * node-postgres (`drizzle-orm/node-postgres`). Its own entry, apart from the stores, so that only an application on
 * Drizzle loads `drizzle-orm` through it. Drizzle's own queries stay Drizzle's (its joins keep their columns): only
 * payonce's statements go through the executor, on the transaction's own Drizzle session with bound parameters.
 * @see docs/your-stack.md "Drizzle (node-postgres)".
 */
import { is, type SQL } from 'drizzle-orm';
import { PgDatabase, type PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** What a statement of the Drizzle session answers on node-postgres (a pg `QueryResult`; the part payonce reads). */
interface NodePgResultLike {
  readonly rows: unknown[];
  readonly rowCount: number | null;
  readonly command: string;
}

/** A Drizzle transaction: the `tx` of `db.transaction(async (tx) => …)` (its `execute` is what payonce uses). */
export interface DrizzleTransactionLike {
  /** Runs one Drizzle SQL statement on the transaction (Drizzle binds its parameters). */
  execute(query: SQL): PromiseLike<unknown>;
}

/** Statements whose `rowCount` is a count of changed rows (as in Kysely's own PostgreSQL driver). */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** The node-postgres result of a Drizzle session's statement, or a plain row array (postgres.js answers one). */
function resultOf(answer: unknown): { rows: unknown[]; numAffectedRows?: bigint } {
  if (Array.isArray(answer)) return { rows: answer };
  const result = answer as NodePgResultLike;
  if (!WRITES.has(result.command) || result.rowCount === null) return { rows: result.rows };
  return { rows: result.rows, numAffectedRows: BigInt(result.rowCount) };
}

/**
 * The executor seam over `tx`, a Drizzle PostgreSQL transaction (node-postgres driver): payonce's statements run on
 * the transaction's Drizzle session (`tx._.session`), prepared from payonce's compiled SQL text and parameters
 * (`session.prepareQuery({ sql, params })`, what `tx.execute(sql)` runs once Drizzle has built its query) — no
 * rebuild of the text into a Drizzle `SQL` object and back, which cost about 80 µs of CPU per statement
 * (packages/bench/notes/stack.md). The Drizzle database itself (`db`, not `tx`) is refused: its statements
 * run outside the transaction.
 * @throws {InvalidOption} `tx` is not a Drizzle PostgreSQL transaction.
 */
export function drizzleExecutor(tx: DrizzleTransactionLike): SqlExecutor {
  if (!is(tx, PgTransaction)) {
    const what = is(tx, PgDatabase) ? 'a Drizzle database, not a transaction; ' : '';
    throw new InvalidOption(
      'tx',
      `is ${what}must be the tx of a Drizzle PostgreSQL db.transaction(async (tx) => …) (drizzle-orm/node-postgres)`,
    );
  }
  const session = (tx as PgTransaction<PgQueryResultHKT>)._.session;
  return {
    dialect: 'postgres',
    async execute(text, parameters) {
      const prepared = session.prepareQuery({ sql: text, params: [...parameters] }, undefined, undefined, false);
      return resultOf(await prepared.execute());
    },
  };
}

/**
 * Runs `work` with `trx`, the Drizzle transaction `tx` as a Kysely `Transaction` typed for `store`'s tables, for
 * payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions). `store` is
 * the payonce store on the same database.
 * @throws {InvalidOption} `tx` is not a Drizzle PostgreSQL transaction, or `store` is not PostgreSQL.
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
 * and any outbox row enqueued with its third argument commit together when `db.transaction` commits, or not at all
 * (a throw rolls the whole transaction back). `handler` gets `tx` itself, typed as the caller's. A duplicate inside a
 * transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress` (409).
 * @throws {InvalidOption} `tx` is not a Drizzle PostgreSQL transaction, or the guard's store is not PostgreSQL.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "Drizzle (node-postgres)".
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

/** A Drizzle PostgreSQL database (the part payonce uses): it opens transactions. */
export interface DrizzleDatabaseLike<X extends DrizzleTransactionLike> {
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: X) => Promise<T>): Promise<T>;
}

/**
 * Transactions of a Drizzle PostgreSQL database (node-postgres driver) for the parts of payonce that open one
 * themselves (a one-commit webhook endpoint, an Idempotency-Key route): each is `db.transaction(async (tx) => …)`,
 * and the handler gets that `tx`.
 * @throws {InvalidOption} `db` is not a Drizzle PostgreSQL database.
 */
export function drizzleTransactions<X extends DrizzleTransactionLike>(
  db: DrizzleDatabaseLike<X>,
): StackTransactions<X> {
  if (!is(db, PgDatabase) || is(db, PgTransaction)) {
    throw new InvalidOption('db', 'must be a Drizzle PostgreSQL database (drizzle(pool) of drizzle-orm/node-postgres)');
  }
  return {
    dialect: 'postgres',
    stack: 'drizzle (node-postgres)',
    transaction: (work) => db.transaction((tx) => work(tx, drizzleExecutor(tx))),
  };
}
