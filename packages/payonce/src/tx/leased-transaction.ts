/**
 * One transaction on a connection lent by the application's pool, the shape of the openers of the raw drivers
 * (`pgTransactions`, `mysql2Transactions`): lend, BEGIN, the work, COMMIT; ROLLBACK and rethrow when the work (or the
 * COMMIT) throws; give the connection back, or have it destroyed when it can no longer be trusted.
 */

/** How one driver's pool lends a connection and runs a transaction on it. */
export interface ConnectionLease<C> {
  /** Lends one connection of the pool. */
  lend(): Promise<C>;
  /** Begins a transaction on `connection`. */
  begin(connection: C): Promise<void>;
  /** Commits it. */
  commit(connection: C): Promise<void>;
  /** Rolls it back. */
  rollback(connection: C): Promise<void>;
  /**
   * Gives `connection` back to the pool; with `broken` (why it cannot be trusted: its ROLLBACK failed, or the
   * driver reported it lost while lent) it must be destroyed, never lent again in an unknown state.
   */
  giveBack(connection: C, broken: Error | undefined): void;
  /**
   * Watches `connection` while it is lent (node-postgres: its `error` event, which would crash the process with no
   * listener): `broken` is called when the driver reports it lost. Returns what stops watching.
   */
  watch?(connection: C, broken: (error: Error) => void): () => void;
}

/** `reason` as an Error (a driver may reject with anything). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * Runs `work` in one transaction on a connection of `lease`: BEGIN, `work(connection)`, COMMIT, and the result; when
 * BEGIN, `work` or COMMIT throws, ROLLBACK and the same error rethrown (a failed ROLLBACK is not thrown: the first
 * error is the one the caller needs). The connection is always given back, marked broken when its ROLLBACK failed or
 * the driver reported it lost while lent.
 * @throws whatever BEGIN, `work` or COMMIT throws, and what `lease.lend()` throws (then nothing was lent).
 */
export async function inLeasedTransaction<C, T>(
  lease: ConnectionLease<C>,
  work: (connection: C) => Promise<T>,
): Promise<T> {
  const connection = await lease.lend();
  let broken: Error | undefined;
  const stopWatching = lease.watch?.(connection, (error) => {
    broken = error;
  });
  try {
    await lease.begin(connection);
    const result = await work(connection);
    await lease.commit(connection);
    return result;
  } catch (error) {
    await lease.rollback(connection).catch((rollbackError: unknown) => {
      broken = asError(rollbackError);
    });
    throw error;
  } finally {
    stopWatching?.();
    lease.giveBack(connection, broken);
  }
}
