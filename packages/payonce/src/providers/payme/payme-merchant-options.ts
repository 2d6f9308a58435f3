import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { PaymeKeyProvider } from './payme-key-provider.js';
import type { PaymeOrder } from './payme-order.js';
import type { PaymeTransaction } from './payme-transaction.js';

/** Options of `createPaymeMerchant`. Exactly one of `keys` and `keyProvider`. */
export interface PaymeMerchantOptions<DB> {
  /** The SQL store (SQLite, PostgreSQL, MySQL/MariaDB) migrated with group `payme`; every call is one transaction on it. */
  readonly store: SqlStore<DB>;
  /**
   * The cashbox key(s), held in this process (`memoryPaymeKeys`): a `ChangePassword` is seen by this process only.
   * With more than one replica use `keyProvider: storedPaymeKeys(store, { initialKeys })`.
   */
  readonly keys?: string | readonly string[];
  /** Where the accepted keys are read on every call and `ChangePassword` stores a new one. */
  readonly keyProvider?: PaymeKeyProvider;
  /**
   * Finds the order the `account` object names (fields as configured in the Payme cabinet) and its amount in tiyin,
   * or `null` when there is none (answered -31050 with `accountField` as `data`). Runs inside the call's transaction
   * `trx` (read your own tables with it, or ignore it).
   */
  readonly findOrder: (account: Readonly<Record<string, unknown>>, trx: Transaction<DB>) => Promise<PaymeOrder | null>;
  /**
   * The fulfilment: called once per transaction, when PerformTransaction moves it to state 2, inside that call's
   * transaction `trx` — enqueue your outbox job with it (`outbox.enqueueOnce(trx, …)`) so it commits with the state.
   * Throwing rolls the perform back (Payme gets -32400 and repeats the call).
   */
  readonly onPerformed: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void> | void;
  /**
   * Called once when CreateTransaction inserts a new transaction (state 1), inside that call's transaction `trx`,
   * after `findOrder` accepted the order in the same transaction: reserve the order with it (e.g. open a payment
   * attempt). Not called for a repeated Create of a known id. Throwing rolls the Create back (-32400; Payme repeats).
   */
  readonly onCreated?: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void> | void;
  /**
   * Called once when a transaction is cancelled (state -1 or -2), inside the transaction that cancels it: by
   * CancelTransaction, or by the 12-hour timeout a CreateTransaction or PerformTransaction finds (state -1, reason 4).
   */
  readonly onCancelled?: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void> | void;
  /**
   * Whether a performed transaction may still be cancelled (state -2); `false` answers -31007 (goods delivered).
   * @default always true
   */
  readonly canCancelPerformed?: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<boolean> | boolean;
  /** The `account` field named in `data` of -31050 (the field your cabinet configures). @default 'order_id' */
  readonly accountField?: string;
  /**
   * Source addresses Payme calls from, as the `client` of `handle` gives them (e.g. Express `req.ip`); a call from
   * any other address is answered -32504. Absent: no address check.
   */
  readonly allowIps?: readonly string[];
  /** Time source, epoch ms UTC. @default systemClock */
  readonly clock?: Clock;
  /** Called with any unexpected error (database failure) answered -32400. */
  readonly onError?: (error: unknown) => void;
}
