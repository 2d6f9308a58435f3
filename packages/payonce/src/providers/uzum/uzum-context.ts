import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import type { UzumOrder } from './uzum-order.js';
import type { UzumTransaction } from './uzum-transaction.js';

/** What the webhook handlers work with: the resolved options of `createUzumMerchant`. */
export interface UzumContext<DB> {
  readonly store: SqlStore<DB>;
  readonly clock: Clock;
  readonly serviceId: number;
  readonly findOrder: (params: Readonly<Record<string, unknown>>, trx: Transaction<DB>) => Promise<UzumOrder | null>;
  readonly onCreated: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void>;
  readonly onConfirmed: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void>;
  readonly onReversed: (trx: Transaction<DB>, transaction: UzumTransaction) => Promise<void>;
}
