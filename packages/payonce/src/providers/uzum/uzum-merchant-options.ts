import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { UzumOrder } from './uzum-order.js';
import type { UzumTransaction } from './uzum-transaction.js';

/** Options of `createUzumMerchant`. */
export interface UzumMerchantOptions<DB> {
  /** The SQL store (SQLite, PostgreSQL, MySQL/MariaDB) migrated with group `uzum`; every call is one transaction on it. */
  readonly store: SqlStore<DB>;
  /** The Basic-authorization login Uzum Bank issued. */
  readonly login: string;
  /** The Basic-authorization password Uzum Bank issued (never logged). */
  readonly password: string;
  /** Your service id issued by Uzum Bank; a call with another `serviceId` is answered 10006. */
  readonly serviceId: number;
  /**
   * Finds the order `params` names (keys as configured for your service) and its amount in tiyin, or `null` when
   * there is none (answered 10007). Runs inside the call's transaction `trx` (read your own tables with it).
   */
  readonly findOrder: (params: Readonly<Record<string, unknown>>, trx: Transaction<DB>) => Promise<UzumOrder | null>;
  /**
   * Called once per new transaction, when /create stores it CREATED, inside that call's transaction `trx` (e.g. to
   * open your order's payment attempt, so no other payment starts beside it). Not called for a repeated /create of
   * a known transId. Throwing rolls the /create back (Uzum Bank gets 99999).
   */
  readonly onCreated?: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void> | void;
  /**
   * The fulfilment: called once per transaction, when /confirm moves it to CONFIRMED, inside that call's
   * transaction `trx` — enqueue your outbox job with it (`outbox.enqueueOnce(trx, …)`) so it commits with the
   * status. Throwing rolls the confirm back (Uzum Bank gets 99999 and asks /status).
   */
  readonly onConfirmed: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void> | void;
  /** Called once when /reverse moves a transaction to REVERSED (from CREATED or CONFIRMED), inside its transaction. */
  readonly onReversed?: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void> | void;
  /** Time source, epoch ms UTC. @default systemClock */
  readonly clock?: Clock;
  /** Called with any unexpected error (database failure, a throwing callback) answered 99999. */
  readonly onError?: (error: unknown) => void;
}
