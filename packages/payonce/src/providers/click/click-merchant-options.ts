import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { ClickKeyProvider } from './click-key-provider.js';
import type { ClickOrder } from './click-order.js';
import type { ClickTransaction } from './click-transaction.js';

/** Options of `createClickMerchant`. Exactly one of `secretKey` and `keyProvider`. */
export interface ClickMerchantOptions<DB> {
  /** The SQL store (SQLite, PostgreSQL, MySQL/MariaDB) migrated with group `click`; every call is one transaction on it. */
  readonly store: SqlStore<DB>;
  /** Your Click `service_id` (a positive integer); a call for any other service is answered -8. */
  readonly serviceId: number;
  /** The service's SECRET_KEY from the Click merchant cabinet (several during a rotation). */
  readonly secretKey?: string | readonly string[];
  /** Where the accepted secret keys are read on every call, instead of `secretKey`. */
  readonly keyProvider?: ClickKeyProvider;
  /**
   * Finds the payable order named `merchantTransId` (Click's `merchant_trans_id`, 1–64 printable ASCII characters)
   * and answers its amount in TIYIN (1 sum = 100 tiyin), or `null` when there is none (answered -5). Runs inside the
   * call's transaction `trx` (read your own tables with it, or ignore it).
   */
  readonly findOrder: (merchantTransId: string, trx: Transaction<DB>) => Promise<ClickOrder | null>;
  /**
   * Called once per new transaction, when a Prepare stores it `prepared`, inside that call's transaction `trx`
   * (e.g. to open your order's payment attempt, so no other payment starts beside it). Not called for a repeated
   * Prepare of a known `click_trans_id`. Throwing rolls the Prepare back (Click gets -7 and stops the payment).
   */
  readonly onPrepared?: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void> | void;
  /**
   * The fulfilment: called once per transaction, when a Complete moves it to `completed`, inside that call's
   * transaction `trx` — enqueue your outbox job with it (`outbox.enqueueOnce(trx, …)`) so it commits with the state.
   * Throwing rolls the Complete back (Click gets -7 and cancels the payment on its side).
   */
  readonly onCompleted: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void> | void;
  /**
   * Called once when a prepared transaction is cancelled — by Click's `error < 0`, or replaced by a newer Prepare
   * for the same order — inside that call's transaction.
   */
  readonly onCancelled?: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void> | void;
  /** Time source, epoch ms UTC. @default systemClock */
  readonly clock?: Clock;
  /** Called with any unexpected error (database failure, a throwing callback) answered -7. */
  readonly onError?: (error: unknown) => void;
}
