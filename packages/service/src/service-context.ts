import type { Clock } from 'payonce/internal/core/clock.js';
import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import type { Outbox } from 'payonce/internal/outbox/outbox.js';
import type { PaymentProvider } from 'payonce/internal/payments/payment-provider.js';
import type { Payments } from 'payonce/internal/payments/payments.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';
import type { SqlDeliveryJournal } from 'payonce/internal/webhooks/journal/sql-delivery-journal.js';
import type { Logger } from 'pino';
import type { ServiceConfig } from './service-config.js';
import type { FULFILMENTS_TABLE, REFUNDS_TABLE } from './service-tables.js';

/**
 * Everything the reference service is built from, handed to every {@link ServiceOverrides} hook so a variant
 * (for example a deliberately faulty one for `payonce storm`) can do the work itself: the SQL store (orders,
 * attempts, outbox, effects, journals and the service tables all live in it), `Payments`, the outbox
 * `Payments` enqueues to, the clock (epoch ms UTC) and the resolved configuration.
 */
export interface ServiceContext {
  /** The SQL store (SQLite, PostgreSQL or MySQL/MariaDB), migrated. */
  readonly store: SqlStore<unknown>;
  readonly payments: Payments<unknown>;
  /** `payments.outbox`: fulfilment (`order.fulfil`) and refund (`order.refunded`) jobs, dedupe key `order:<id>`. */
  readonly outbox: Outbox<unknown>;
  readonly clock: Clock;
  readonly config: ServiceConfig;
  /** The payment provider checkouts call (the sandbox client by default). */
  readonly provider: PaymentProvider;
  /**
   * False when the service runs without a Stripe-shaped provider (no `providerUrl`, only Payme, Click or Uzum):
   * checkout and the Stripe-shaped webhooks then answer 409 `PROVIDER_NOT_CONFIGURED`.
   */
  readonly checkoutAvailable: boolean;
  /** Name of the fulfilment table: insert `{ id, order_id, attempt_id, job_id, created_at }` for one shipment. */
  readonly fulfilmentsTable: typeof FULFILMENTS_TABLE;
  /** Name of the refund table (same columns). */
  readonly refundsTable: typeof REFUNDS_TABLE;
  /** The webhook delivery journal (`payonce_webhook_deliveries`). */
  readonly journal: SqlDeliveryJournal;
  /** The guard of the webhook intake's receipts (SQL, Redis with `redisUrl`, or the override). */
  readonly intakeGuard: IdempotencyGuard;
  /** The guard of `Idempotency-Key` on `/orders*` (SQL, namespace `http`). */
  readonly httpGuard: IdempotencyGuard;
  readonly logger: Logger;
}
