/**
 * `payonce/tx/postgres-js`: payonce's one-commit mode in a postgres.js transaction the application opened itself
 * (the `tx` of `sql.begin(async (tx) => …)`, a `TransactionSql`). Its own entry so that only an application that
 * joins postgres.js transactions loads it; postgres.js itself is never imported (`postgres` is an optional peer).
 * @see docs/your-stack.md "postgres.js".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { postgresResult } from './postgres-result.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** What a postgres.js query resolves to (its `RowList`, the part payonce reads): the rows, plus the command tag. */
export interface PostgresJsRowListLike extends ReadonlyArray<unknown> {
  /** Rows the statement returned or changed, from the server's command tag; `null` where it reports none. */
  readonly count: number | null;
  /** The statement's command tag: `INSERT`, `UPDATE`, `SELECT`, … */
  readonly command: string;
}

/** The options of postgres.js's `unsafe` that payonce passes. */
export interface PostgresJsUnsafeOptions {
  /**
   * `true`: the statement is prepared (named) on the connection the first time its text runs there and only bound
   * and executed after that, unless the `postgres()` call set `prepare: false`.
   */
  prepare?: boolean;
}

/** A postgres.js `TransactionSql`: the `tx` that `sql.begin(async (tx) => …)` hands its callback. */
export interface PostgresJsTransactionSql {
  /**
   * Runs one statement with bound values (`$1`, `$2`, …) on the transaction's connection. (`never[]`: any typing of
   * postgres.js's parameters is accepted; payonce passes the values Kysely compiled.)
   */
  unsafe(query: string, parameters: never[], options?: PostgresJsUnsafeOptions): PromiseLike<PostgresJsRowListLike>;
  /** Opens a savepoint; only a transaction's `tx` has it (postgres.js's root `sql` has `begin` and `end` instead). */
  readonly savepoint: (...parameters: never[]) => unknown;
}

const ACCEPTED =
  'must be the tx of postgres.js sql.begin(async (tx) => …) (a TransactionSql), not the root sql nor a reserved connection';

/** `unsafe`'s options for payonce's statements: prepared, as postgres.js prepares its own tagged queries. */
const PREPARED: PostgresJsUnsafeOptions = Object.freeze({ prepare: true });

/**
 * The executor seam over `tx`, the `TransactionSql` of postgres.js's `sql.begin(async (tx) => …)`: payonce's
 * statements run on it with `tx.unsafe(text, parameters, { prepare: true })`. Prepared, as postgres.js prepares its
 * own tagged queries by default: `unsafe` alone sends every statement with values in two round trips (Parse and
 * Describe, wait for the server's parameter types, then Bind and Execute), a prepared one in one after its first run
 * on a connection (payonce's statement texts are fixed, so each connection prepares a handful). A `postgres()` call
 * with `prepare: false` (a pooler in transaction mode, PgBouncer) still prepares nothing: postgres.js lets that
 * option win. postgres.js binds a `Uint8Array` as `bytea`, a `Date` as
 * `timestamptz`, a `bigint` as `int8`, a boolean as `bool`, and lets the server type a string or a number from the
 * statement, then serializes the value for that type: payonce's JSON is text in `text` columns and lands verbatim,
 * but a string bound to a `json`/`jsonb` column is JSON-encoded again (a JSON string), so in your own statements
 * through payonce's view bind the object, not its text. `numAffectedRows` is the result's `count` for INSERT /
 * UPDATE / DELETE / MERGE (its `command`).
 *
 * How the root `sql` is told apart: postgres.js gives only a transaction's `tx` (and its savepoints) a `savepoint`
 * method, while the root `sql` has `end` (and `savepoint` nowhere) and a reserved connection (`sql.reserve()`) has
 * `release`; postgres.js 4 also gives `tx` a `begin` (nested transactions), so `begin` tells nothing.
 * Those two run each statement outside any transaction the callback could own (postgres.js refuses a raw `BEGIN` on
 * the root pool), so they are refused.
 * The transaction must not transform column names (`transform: postgres.camel` or similar on the `postgres()`
 * call): payonce reads its own columns by their snake_case names.
 * @throws {InvalidOption} `tx` is the root `sql` or a reserved connection, or not an object with `unsafe` and
 * `savepoint`.
 * @see postgres.js README "Transactions" (`sql.begin`, `savepoint`), "Unsafe raw string queries" and "Prepared
 * statements"; packages/bench/notes/stack.md (the round trips counted).
 */
export function postgresJsExecutor(tx: PostgresJsTransactionSql): SqlExecutor {
  const candidate = tx as Partial<PostgresJsTransactionSql> & { end?: unknown; release?: unknown };
  // postgres.js's `sql` and `tx` are functions (tagged templates) with methods.
  if (
    (typeof candidate !== 'object' && typeof candidate !== 'function') ||
    candidate === null ||
    typeof candidate.unsafe !== 'function' ||
    typeof candidate.savepoint !== 'function' ||
    typeof candidate.end === 'function' ||
    typeof candidate.release === 'function'
  ) {
    throw new InvalidOption('tx', ACCEPTED);
  }
  return {
    dialect: 'postgres',
    async execute(sql, parameters) {
      const result = await tx.unsafe(sql, [...parameters] as never[], PREPARED);
      return postgresResult([...result], result.command, result.count);
    },
  };
}

/**
 * Runs `work` with `trx`, the application's open postgres.js transaction `tx` as a Kysely `Transaction` typed for
 * `store`'s tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments'
 * transitions). `store` is the payonce store on the same database.
 * @throws {InvalidOption} `tx` is not a `TransactionSql` (see `postgresJsExecutor`), or `store` is not PostgreSQL.
 * @throws whatever `work` throws.
 * @example
 * await sql.begin((tx) => withPostgresJsTransaction(store, tx, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', key, {})));
 */
export async function withPostgresJsTransaction<S extends JoinableStore, T>(
  store: S,
  tx: PostgresJsTransactionSql,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, postgresJsExecutor(tx), work);
}

/**
 * `guard.runInTransaction` in the application's own postgres.js transaction `tx` (inside `sql.begin`): the
 * receipt, `handler`'s writes on `tx` and any outbox row enqueued with its third argument commit together when
 * `sql.begin`'s callback resolves, or not at all. `handler` gets `tx` itself, typed as the caller's. A duplicate
 * inside a transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress`
 * (HTTP 409).
 * @throws {InvalidOption} `tx` is not a `TransactionSql`, or the guard's store is not a PostgreSQL store.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws (postgres.js then rolls
 * back).
 * @see docs/your-stack.md "postgres.js".
 * @example
 * await sql.begin((tx) =>
 *   runInPostgresJsTransaction(guard, tx, new RequestKey('stripe', event.id), async (tx) => {
 *     await tx`update orders set paid = true where id = ${orderId}`;
 *   }),
 * );
 */
export async function runInPostgresJsTransaction<S extends JoinableStore, C extends PostgresJsTransactionSql>(
  guard: IdempotencyGuard<S>,
  tx: C,
  key: RequestKey,
  handler: JoinedHandler<C, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, postgresJsExecutor(tx), tx, key, handler, options);
}

/** A postgres.js root `sql` (the part payonce uses): `begin` runs a callback in one transaction. */
export interface PostgresJsSqlLike<C extends PostgresJsTransactionSql> {
  /** `BEGIN`, the callback with the transaction's `tx`, then `COMMIT`, or `ROLLBACK` when the callback throws. */
  begin<T>(callback: (tx: C) => T | Promise<T>): Promise<unknown>;
  /** The same with `options` after `BEGIN` (`'isolation level serializable'`, `'read write'`, …). */
  begin<T>(options: string, callback: (tx: C) => T | Promise<T>): Promise<unknown>;
}

/**
 * Transactions of a postgres.js `sql` for the parts of payonce that open one themselves (a one-commit webhook
 * endpoint, an Idempotency-Key route): each is `sql.begin((tx) => work(tx, executor))`, which postgres.js commits
 * when `work` resolves and rolls back when it throws (on a connection it reserves for the transaction).
 * @throws {InvalidOption} `sql` has no `begin` method (a `tx` was passed instead of the root `sql`).
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: postgresJsTransactions(sql), … } } })
 */
export function postgresJsTransactions<C extends PostgresJsTransactionSql>(
  sql: PostgresJsSqlLike<C>,
): StackTransactions<C> {
  if ((typeof sql !== 'function' && typeof sql !== 'object') || sql === null || typeof sql.begin !== 'function') {
    throw new InvalidOption('sql', 'must be the root sql of postgres.js (postgres(url)), the one with sql.begin');
  }
  return {
    dialect: 'postgres',
    stack: 'postgres.js',
    async transaction<T>(work: (tx: C, executor: SqlExecutor) => Promise<T>): Promise<T> {
      return (await sql.begin((tx) => work(tx, postgresJsExecutor(tx)))) as T;
    },
  };
}
