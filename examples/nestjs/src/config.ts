/** Where the shop keeps its data: one PostgreSQL database and schema for its own tables and payonce's. */
export interface ShopConfig {
  /** PostgreSQL URL. */
  readonly databaseUrl: string;
  /** The schema holding the shop's and payonce's tables (their `search_path`). */
  readonly schema: string;
  /** The Stripe webhook signing secret (`whsec_…`) of the `/webhooks/stripe` endpoint. */
  readonly stripeWebhookSecret: string;
}

/** The shop's configuration from the environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShopConfig {
  const stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET;
  if (!stripeWebhookSecret) throw new Error('set STRIPE_WEBHOOK_SECRET (the whsec_… of your Stripe endpoint)');
  return {
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    schema: env.DATABASE_SCHEMA ?? 'public',
    stripeWebhookSecret,
  };
}

/** The injection token of the `ShopConfig`. */
export const SHOP_CONFIG = Symbol('SHOP_CONFIG');
