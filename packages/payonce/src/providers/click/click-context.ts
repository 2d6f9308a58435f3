import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { ClickOrder } from './click-order.js';
import type { ClickTransaction } from './click-transaction.js';

/** What the action handlers work with: the resolved options of `createClickMerchant`. */
export interface ClickContext<DB> {
  readonly store: SqlStore<DB>;
  readonly clock: Clock;
  readonly findOrder: (merchantTransId: string, trx: Transaction<DB>) => Promise<ClickOrder | null>;
  readonly onPrepared: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void>;
  readonly onCompleted: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void>;
  readonly onCancelled: (trx: Transaction<DB>, transaction: ClickTransaction) => Promise<void>;
}
