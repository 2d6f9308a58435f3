import type { Order } from './order.js';
import type { PaymentAttempt } from './payment-attempt.js';

/** An attempt and its order, both locked in the caller's transaction (order first). */
export interface LockedTarget {
  readonly order: Order;
  readonly attempt: PaymentAttempt;
  /**
   * Whether the inbox held a parked event naming the attempt (by its id or its payment id as locked), as this
   * transaction reads it when it locks the attempt; absent when not read. It sees what `parkedFor` would see later
   * in the same transaction: on PostgreSQL every row committed before the statement (another transaction parking one
   * for this attempt meanwhile waits for the order's lock); on MySQL/MariaDB the transaction's snapshot, which can
   * predate a refund parked by the transaction whose order lock this one waited for (REPEATABLE READ). A parked row
   * either read misses is applied by the reconciliation sweep (`parkedMatchable`; docs/design.md §11).
   */
  readonly parked?: boolean;
  /** Whether the event being applied was journaled already, read with the lock; absent when not read. */
  readonly journaled?: boolean;
}
