import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { PaymeOrder } from './payme-order.js';
import type { PaymeTransaction } from './payme-transaction.js';

/** What the method handlers work with: the resolved options of `createPaymeMerchant`. */
export interface PaymeContext<DB> {
  readonly store: SqlStore<DB>;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly accountField: string;
  readonly findOrder: (account: Readonly<Record<string, unknown>>, trx: Transaction<DB>) => Promise<PaymeOrder | null>;
  readonly onPerformed: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void>;
  readonly onCreated: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void>;
  readonly onCancelled: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<void>;
  readonly canCancelPerformed: (trx: Transaction<DB>, transaction: PaymeTransaction) => Promise<boolean>;
}
