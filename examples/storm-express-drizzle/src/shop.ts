import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { IdempotencyGuard } from 'payonce';
import type { Outbox } from 'payonce/outbox';
import type { PostgresStore } from 'payonce/postgres';
import type { ReceiptsDatabase } from 'payonce/sql';
import type { StackTransactions } from 'payonce/tx/drizzle';
import type Stripe from 'stripe';

/** Drizzle's transaction on node-postgres, as `db.transaction` hands it to its callback. */
export type ShopTx = Parameters<Parameters<NodePgDatabase['transaction']>[0]>[0];

/** What the shop's routes, webhook and worker share: its database, payonce's store on it, and the provider. */
export interface Shop {
  readonly db: NodePgDatabase;
  /** `drizzleTransactions(db)`: payonce opens the one-commit transactions of a route or webhook with it. */
  readonly transactions: StackTransactions<ShopTx>;
  readonly store: PostgresStore;
  readonly guard: IdempotencyGuard<PostgresStore>;
  readonly outbox: Outbox<ReceiptsDatabase>;
  /** The Stripe SDK, pointed at `PAYONCE_STORM_SANDBOX_URL` under the storm (at api.stripe.com otherwise). */
  readonly stripe: Stripe;
  /** The `whsec_…` Stripe signs this endpoint's webhooks with. */
  readonly webhookSecret: string;
}

/** The outbox topic of an order to ship; its dedupe key is `order:<id>`. */
export const FULFIL_TOPIC = 'order.fulfil';

/** The customer a request is for: the `X-Customer-Id` header (a real shop reads its session). */
export const customerOf = (req: { get(name: string): string | undefined }): string =>
  req.get('x-customer-id') ?? 'guest';
