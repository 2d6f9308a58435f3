import { InvalidOption } from '../core/errors.js';
import type { ClaimContext, HandlerResult, RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { Store, TransactionOf } from '../core/store.js';
import { checkJoinedTransaction } from '../stores/sql/joined-check.js';
import { joinTransaction, type SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { SqlDialectName } from '../stores/sql/sql-dialect.js';

/**
 * A store whose statements can join the application's transaction: a SQL store (`PostgresStore`, `MysqlStore`,
 * `SqliteStore`) of any database type.
 */
export type JoinableStore = Store & {
  readonly supportsTransactions: true;
  readonly dialect: { readonly name: SqlDialectName };
};

/**
 * A handler run in the application's own transaction: `tx` is the stack's own transaction object (a pg `PoolClient`,
 * a Drizzle `tx`), `claim` what the guard claimed, and `payonceTx` the same transaction as a Kysely `Transaction` for
 * payonce's other one-commit calls (`outbox.enqueueOnce(payonceTx, …)`, the payments' transitions).
 */
export type JoinedHandler<N, Tx> = (tx: N, claim: ClaimContext, payonceTx: Tx) => HandlerResult;

/**
 * `work` with `trx`, the application's transaction behind `executor` as a Kysely `Transaction` typed for `store`'s
 * tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce`, the payments' transitions).
 * @throws {InvalidOption} `store` is not a SQL store of the executor's dialect; the transaction has ended or is on
 *   another database or schema than `store` (see `checkJoinedTransaction`).
 * @throws whatever `work` throws.
 */
export async function withJoined<S extends JoinableStore, T>(
  store: S,
  executor: SqlExecutor,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  checkStore(store, executor);
  await checkJoinedTransaction(store, executor);
  return await joinTransaction(executor, (trx) => work(trx as TransactionOf<S>));
}

/** @throws {InvalidOption} `store` is not a SQL store of the executor's dialect. */
function checkStore(store: Partial<JoinableStore> | undefined, executor: SqlExecutor): void {
  if (store?.supportsTransactions !== true || store.dialect?.name !== executor.dialect) {
    throw new InvalidOption(
      'store',
      `must be a ${executor.dialect} SQL store (PostgresStore, MysqlStore, SqliteStore) of the transaction's database`,
    );
  }
}

/**
 * `guard.runInTransaction` on a transaction the application's stack opened, through `executor`: the receipt, the
 * handler's business writes and any outbox row commit or roll back together when the caller's stack ends its
 * transaction. A duplicate never waits for an in-flight claim here (`waitForInFlightMs` is 0 whatever the guard or
 * `options` say: a caller's transaction must not sit idle, Prisma's time out after 5 s): a claim committed and still
 * running elsewhere answers `RequestInProgress` (HTTP 409 `REQUEST_IN_PROGRESS`). A copy in another transaction that
 * has not committed yet holds the receipt's row lock, so on PostgreSQL this one's claim statement waits for
 * that transaction to end (the database's own lock, never a poll) and then replays its committed response, or claims
 * if it rolled back.
 * @throws {InvalidOption} the guard's store is not a SQL store of the executor's dialect; the transaction has ended
 *   or is on another database or schema than the store (see `checkJoinedTransaction`).
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws (the caller rolls back).
 */
export async function runJoined<S extends JoinableStore, N>(
  guard: IdempotencyGuard<S>,
  executor: SqlExecutor,
  native: N,
  key: RequestKey,
  handler: JoinedHandler<N, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  checkStore(guard?.store, executor);
  if (typeof handler !== 'function') throw new InvalidOption('handler', 'must be a function');
  await checkJoinedTransaction(guard.store, executor);
  return await joinTransaction(executor, (trx) => {
    const payonceTx = trx as TransactionOf<S>;
    return guard.runInTransaction(payonceTx, key, (_, claim) => handler(native, claim, payonceTx), {
      ...options,
      waitForInFlightMs: 0,
    });
  });
}
