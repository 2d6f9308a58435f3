import Stripe from 'stripe';

/**
 * The Stripe SDK for `apiKey`; with `apiUrl` (the storm's `PAYONCE_STORM_SANDBOX_URL`) it talks to that host
 * instead of api.stripe.com (the SDK's `host`, `port` and `protocol` options). The SDK retries a lost answer once
 * with the same `Idempotency-Key`; `timeoutMs` bounds each call.
 */
export function stripeClient(apiKey: string, apiUrl: string | undefined, timeoutMs = 10_000): Stripe {
  if (apiUrl === undefined) return new Stripe(apiKey, { timeout: timeoutMs });
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return new Stripe(apiKey, {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port),
    protocol,
    timeout: timeoutMs,
  });
}
