import type { Transaction } from 'kysely';
import { transaction } from '../outbox/sql-transaction.js';
import type { SqlStore } from '../stores/sql/sql-store.js';

/** What `inProviderCallTransaction` needs to know. */
export interface ProviderCallRetry {
  /** Runs of the call in all; the last failure is thrown. */
  readonly attempts: number;
  /** The engine's own "a concurrent call wrote the same row first" error (e.g. `ClickRaceLost`). */
  readonly raceLost: (error: unknown) => boolean;
}

/** A short random pause (5–25 ms) before running a call again that the database chose as a deadlock's victim. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));

/**
 * Runs one provider call (a Payme method, a Click Prepare/Complete, an Uzum webhook) in ONE fresh transaction of
 * `store`, and runs the WHOLE call again — in a new transaction that re-reads the state, so its answer is the
 * protocol's answer for the state it then finds — when it lost a race (`retry.raceLost`) or the database aborted
 * it as a deadlock or serialization victim or after a lock wait timeout (the dialect's transient errors: MySQL
 * 1213/1205, PostgreSQL 40P01/40001, SQLITE_BUSY) more often than one transaction's own retries (`transaction`:
 * a few tries with back-off) absorbed. Concurrent calls on MariaDB deadlock on InnoDB's gap locks (a locking read
 * of a row not yet there, then an insert into the same gap): three replicas answered Click -7 and Payme -32400
 * after six deadlocks in a row, where one more run answers correctly.
 *
 * On MySQL/MariaDB the transaction runs at READ COMMITTED. At InnoDB's default REPEATABLE READ, a call's locking read
 * of a row that is not there yet (Click's `click_trans_id`, Payme's transaction id, Uzum's `transId`: new ids, often
 * above every id in the index) takes a gap lock up to the index's end, which every concurrent call of every order
 * also takes; their inserts then wait on each other's gap locks and deadlock, and on a loaded server the waits run
 * into the lock wait timeout while holding those locks (seen: a Click storm on MariaDB under load answered -7 after
 * ten deadlocked runs, and one transaction stayed open 98 s). At READ COMMITTED a locking read locks only rows that
 * exist; two calls that both found nothing race on the unique index instead (the second insert waits for the
 * first's commit, then fails as a duplicate: the engine's `raceLost`, run again whole, finds the row). Rows that
 * exist (the order, a live transaction) are still locked for the rest of the transaction, so the rules that read
 * them hold as before (MySQL reference manual, "InnoDB Locking" and "Transaction Isolation Levels").
 * @throws the last error after `retry.attempts` runs, or at once any error that is neither of those.
 */
export async function inProviderCallTransaction<DB, T>(
  store: SqlStore<DB>,
  retry: ProviderCallRetry,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(store, work, store.dialect.name === 'mysql' ? 'read committed' : undefined);
    } catch (error) {
      const transient = store.dialect.isTransientError(error);
      if ((!retry.raceLost(error) && !transient) || attempt >= retry.attempts) throw error;
      if (transient) await pause();
    }
  }
}
