import { hmacScheme } from './hmac-scheme.js';
import type { SecretsInput } from './scheme-options.js';
import type { SyncSignatureScheme } from './signature-scheme.js';

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`, keyed with the app's client secret
 * as UTF-8. A hex digest is rejected (`malformed_header`); there is no timestamp. Several secrets during
 * rotation.
 * @throws {InvalidOption} no secret or an empty one.
 * @see https://shopify.dev/docs/apps/build/webhooks/verify-deliveries; @shopify/shopify-api
 * lib/webhooks/validate.ts.
 * @example const scheme = shopifyScheme({ secrets: process.env.SHOPIFY_API_SECRET! });
 */
export function shopifyScheme(options: { secrets: SecretsInput; name?: string }): SyncSignatureScheme {
  return hmacScheme({
    name: options.name ?? 'shopify',
    secrets: options.secrets,
    header: 'X-Shopify-Hmac-Sha256',
    algorithm: 'sha256',
    encoding: 'base64',
  });
}
