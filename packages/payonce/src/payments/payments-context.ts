import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outbox } from '../outbox/outbox.js';
import type { SqlStore } from '../stores/sql/sql-store.js';
import { tablesIn, tablesOf } from '../stores/sql/table-namespace.js';
import type { PaymentAlert } from './payment-alert.js';
import type { PaymentProvider } from './payment-provider.js';
import type { PaymentsDatabase } from './payments-tables.js';

/** What every payments use case (checkout, provider events, reconciliation, order queries) works with. */
export interface PaymentsContext<DB> {
  readonly store: SqlStore<DB>;
  readonly provider: PaymentProvider;
  /** The outbox fulfilment and refund jobs are enqueued to. */
  readonly outbox: Outbox<DB>;
  /** Records (provider, event id) receipts inside the event's transaction. */
  readonly guard: IdempotencyGuard<SqlStore<DB>>;
  readonly clock: Clock;
  /** Called after commit for every rejected report (mismatch) and anomaly. */
  readonly onAlert: (alert: PaymentAlert) => void;
}

/** The store's query builder typed with the payments tables (qualified with the store's `schema`). */
export function paymentsDb<DB>(ctx: PaymentsContext<DB>): Kysely<PaymentsDatabase> {
  return tablesOf<PaymentsDatabase>(ctx.store);
}

/** A caller's transaction typed with the payments tables (qualified with the store's `schema`). */
export function paymentsTrx<DB>(ctx: PaymentsContext<DB>, trx: Transaction<DB>): Kysely<PaymentsDatabase> {
  return tablesIn<PaymentsDatabase>(ctx.store, trx);
}
