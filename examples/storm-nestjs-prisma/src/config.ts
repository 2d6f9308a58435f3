/** Where the shop keeps its data and how it reaches Stripe. */
export interface ShopConfig {
  /** PostgreSQL URL. */
  readonly databaseUrl: string;
  /** The schema holding the shop's and payonce's tables (their `search_path`). */
  readonly schema: string;
  /** The Stripe secret key (`sk_…`). */
  readonly stripeApiKey: string;
  /** Another Stripe API host (the storm's sandbox), or `undefined` for api.stripe.com. */
  readonly stripeApiUrl: string | undefined;
  /** The `whsec_…` Stripe signs `/webhooks/stripe` with. */
  readonly stripeWebhookSecret: string;
}

/**
 * The shop's configuration from the environment: `DATABASE_URL`, `DATABASE_SCHEMA` (default `public`),
 * `STRIPE_API_KEY` and `STRIPE_WEBHOOK_SECRET`, or under `payonce storm --start` its `PAYONCE_STORM_API_KEY`,
 * `PAYONCE_STORM_WEBHOOK_SECRET` and `PAYONCE_STORM_SANDBOX_URL` (docs/storm-your-app.md).
 * @throws {Error} no Stripe key or webhook secret.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShopConfig {
  const stripeApiKey = env.PAYONCE_STORM_API_KEY ?? env.STRIPE_API_KEY;
  const stripeWebhookSecret = env.PAYONCE_STORM_WEBHOOK_SECRET ?? env.STRIPE_WEBHOOK_SECRET;
  if (!stripeApiKey || !stripeWebhookSecret) {
    throw new Error('set STRIPE_API_KEY and STRIPE_WEBHOOK_SECRET (or run under payonce storm)');
  }
  return {
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    schema: env.DATABASE_SCHEMA ?? 'public',
    stripeApiKey,
    stripeApiUrl: env.PAYONCE_STORM_SANDBOX_URL,
    stripeWebhookSecret,
  };
}

/** The injection token of the `ShopConfig`. */
export const SHOP_CONFIG = Symbol('SHOP_CONFIG');
