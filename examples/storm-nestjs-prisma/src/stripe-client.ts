import Stripe from 'stripe';
import type { ShopConfig } from './config.js';

/**
 * The Stripe SDK for the shop's key; with `stripeApiUrl` (the storm's `PAYONCE_STORM_SANDBOX_URL`) it talks to that
 * host instead of api.stripe.com (the SDK's `host`, `port` and `protocol`). `timeoutMs` bounds each call.
 */
export function stripeClient(config: ShopConfig, timeoutMs = 10_000): Stripe {
  if (config.stripeApiUrl === undefined) return new Stripe(config.stripeApiKey, { timeout: timeoutMs });
  const url = new URL(config.stripeApiUrl);
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port);
  return new Stripe(config.stripeApiKey, { host: url.hostname, port, protocol, timeout: timeoutMs });
}

/** The injection token of the shop's Stripe SDK. */
export const STRIPE = Symbol('STRIPE');
