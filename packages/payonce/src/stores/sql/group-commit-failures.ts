import { storeError } from '../../core/guard-failures.js';
import { isStoreOutage } from './driver-error.js';

/**
 * The claims made together or the writes deferred to the commit of a group transaction failed other than
 * transiently, or a work left the transaction aborted without failing itself: its callers run again, each in its own
 * transaction.
 */
export class DeferredWritesFailed extends Error {}

/**
 * True when `error` (or its `cause`) is PostgreSQL's "current transaction is aborted" (SQLSTATE 25P02): an earlier
 * statement of the transaction failed and a work caught that error and went on, so the statement that failed now is
 * not its sender's fault. (A COMMIT of such a transaction rolls it back without an error: never acknowledge one.)
 */
export function leftAborted(error: unknown): boolean {
  const code = (value: unknown) => (value as { code?: unknown } | null)?.code;
  return code(error) === '25P02' || (error instanceof Error && code(error.cause) === '25P02');
}

/**
 * A work of a group transaction run without savepoints failed: the transaction is rolled back whole and the batch
 * runs again with a savepoint per work. Never transient itself (no `cause`), so the store does not retry it.
 */
export class ShareFailed extends Error {}

/**
 * What a failure of the claim (`claimTogether`) or of the end writes of a caller alone in its group transaction is
 * rethrown as: a transient one as it is (`SqlStore.transaction` runs the transaction again); an outage (a timeout, a
 * cancelled statement, a lost connection: `isStoreOutage`) as `StoreUnavailable` of `operation`, answered 503 at
 * once, not tried again behind the same blocked row; anything else as {@link DeferredWritesFailed}, after which the
 * caller runs again alone with the guard's own claim and completion, which report their own errors (`ClaimLost`).
 */
export function aloneFailure(operation: string, error: unknown, transient: boolean): unknown {
  if (transient) return error;
  if (isStoreOutage(error)) return storeError(operation, error);
  return new DeferredWritesFailed(`the ${operation} of a caller alone in its group transaction failed`, {
    cause: error,
  });
}
