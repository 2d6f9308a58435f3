import { InvalidOption } from '../../core/errors.js';
import { storeError } from '../../core/guard-failures.js';
import type { ClaimContext, HandlerResult, RunOptions } from '../../core/guard-types.js';
import type { IdempotencyGuard } from '../../core/idempotency-guard.js';
import type { Outcome } from '../../core/outcome.js';
import type { RequestKey } from '../../core/request-key.js';
import type { Store } from '../../core/store.js';
import { dialectNamed } from './dialects.js';
import { type CheckedStore, checkOpenerDatabase } from './joined-check.js';
import { joinTransaction } from './joined-transaction.js';
import { withRetry } from './retry.js';
import { SQL_DIALECT_NAMES, type SqlDialectName } from './sql-dialect.js';
import type { StackTransactions } from './stack-transactions.js';

/** How deep `isTransientDeep` follows `cause`: an ORM's error around a driver's error around the server's. */
const MAX_CAUSE_DEPTH = 4;

const ACCEPTED =
  'must be true, false, or the transactions of your stack from payonce/tx/* (pgTransactions(pool), ' +
  'drizzleTransactions(db), …): an object { dialect, stack, transaction(work) }';

/**
 * Checks that `value` is a {@link StackTransactions} (an opener of `payonce/tx/*`) and that `store` is a SQL store of
 * its dialect, so that payonce's statements, written in the store's dialect, run on the stack's database. The opener
 * given back checks, in its first transaction (until one passes), that the stack's database holds the same payonce
 * tables as the store (`checkOpenerDatabase`): its transactions then throw `InvalidOption` (`where`) when the pool
 * is on another database or schema, whose own copy of the tables would split the receipts.
 * @param where the option's name for the message (`endpoints.stripe.transaction`, `transaction`).
 * @throws {InvalidOption} `value` is not an opener, or `store` is not a SQL store of the opener's dialect.
 */
export function checkStackTransactions(value: unknown, store: Store, where: string): StackTransactions<unknown> {
  const candidate = value as Partial<StackTransactions<unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.transaction !== 'function' ||
    !SQL_DIALECT_NAMES.includes(candidate.dialect as SqlDialectName)
  ) {
    throw new InvalidOption(where, ACCEPTED);
  }
  const sqlStore = store as Partial<{ supportsTransactions: boolean; dialect: { name?: unknown } }>;
  if (sqlStore.supportsTransactions !== true || sqlStore.dialect?.name !== candidate.dialect) {
    throw new InvalidOption(
      where,
      `opens ${candidate.dialect} transactions (${String(candidate.stack)}): the guard's store must be a ` +
        `${candidate.dialect} SQL store (PostgresStore, MysqlStore, SqliteStore) on the same database`,
    );
  }
  const opener = candidate as StackTransactions<unknown>;
  return {
    dialect: opener.dialect,
    stack: opener.stack,
    transaction: (work) =>
      opener.transaction(async (tx, executor) => {
        await checkOpenerDatabase(store as unknown as CheckedStore, opener, executor, where);
        return await work(tx, executor);
      }),
  };
}

/** True when `error`, or one of its causes, is a transient error of `dialect` (deadlock, lock wait, busy). */
function isTransientDeep(dialect: SqlDialectName, error: unknown): boolean {
  const transient = dialectNamed(dialect);
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (transient.isTransientError(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/**
 * Opens ONE transaction of the application's stack through `transactions` and runs `work` with the stack's own
 * transaction object (`native`) and payonce's Kysely view of the same transaction (`payonceTx`); commits when `work`
 * resolves, rolls back when it throws. After a transient error of the dialect (deadlock, serialization failure,
 * lock wait timeout, SQLITE_BUSY; also when a wrapper such as an ORM's error carries it as a `cause`) the WHOLE
 * transaction runs again, a few times with a short jittered back-off (stores/sql/retry.ts), as
 * `SqlStore.transaction` does: `work` must only write to the database.
 * @throws whatever `work` throws (after the rollback), unchanged.
 * @throws {StoreUnavailable} the stack failed to begin or commit the transaction (the commit's outcome is unknown:
 *   the receipt decides on the next delivery); a `PayonceError` passes as it is.
 */
export async function inStackTransaction<N, T>(
  transactions: StackTransactions<N>,
  work: (native: N, payonceTx: unknown) => Promise<T>,
): Promise<T> {
  let thrown: { readonly error: unknown } | null = null;
  try {
    return await withRetry(
      () =>
        transactions.transaction((native, executor) => {
          thrown = null;
          return joinTransaction(executor, async (payonceTx) => {
            try {
              return await work(native, payonceTx);
            } catch (error) {
              thrown = { error };
              throw error;
            }
          });
        }),
      (error) => isTransientDeep(transactions.dialect, error),
      true,
    );
  } catch (error) {
    // `work`'s own errors pass as they are; BEGIN or COMMIT failing is the store's (the stack's) failure.
    if (thrown !== null && (thrown as { readonly error: unknown }).error === error) throw error;
    throw storeError('transaction', error);
  }
}

/**
 * The one-commit mode in a transaction payonce opens on the application's stack: per call ONE transaction of
 * `transactions` (see {@link inStackTransaction}, retried whole after a transient error) claims `key` through
 * payonce's Kysely view of it (`guard.runInTransaction`), runs `handler` with the stack's own transaction object,
 * the claim and that view, completes the receipt and commits once: the receipt, the handler's writes through
 * either object, and any outbox row or payments transition made with the view commit together, or none does.
 * A duplicate never waits for an in-flight claim here (`waitForInFlightMs` is 0, as in `runJoined`): a claim
 * committed and still running elsewhere is `RequestInProgress` at once; a copy whose transaction has not committed
 * holds the receipt's row lock, so this claim waits for that transaction's end (the database's lock) and replays.
 * Check the opener and the store first with {@link checkStackTransactions}.
 * @throws the errors of `IdempotencyGuard.runInTransaction` (`RequestInProgress`, `PayloadMismatch`, …), whatever
 *   `handler` throws (after the rollback), and `StoreUnavailable` when BEGIN or COMMIT failed.
 */
export async function runInStackTransaction<N, R extends HandlerResult>(
  guard: IdempotencyGuard,
  transactions: StackTransactions<N>,
  key: RequestKey,
  handler: (native: N, claim: ClaimContext, payonceTx: unknown) => R,
  options: RunOptions = {},
): Promise<Outcome> {
  return await inStackTransaction(transactions, (native, payonceTx) =>
    guard.runInTransaction(payonceTx as never, key, (_, claim) => handler(native, claim, payonceTx), {
      ...options,
      waitForInFlightMs: 0,
    }),
  );
}
