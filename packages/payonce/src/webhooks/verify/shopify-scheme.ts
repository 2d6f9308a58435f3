import { checkVerifyInput } from './check-verify-input.js';
import { headerValue } from './headers.js';
import { hmacScheme } from './hmac-scheme.js';
import { type SecretsInput, schemeName } from './scheme-options.js';
import { reject, type SyncSignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';

/** One kind of Shopify delivery: the header carrying its HMAC and the headers it must also carry. */
interface DeliveryKind {
  readonly hmacHeader: string;
  readonly required: readonly string[];
}

/** Classic webhooks (`X-Shopify-*` headers). */
const WEBHOOKS: DeliveryKind = {
  hmacHeader: 'X-Shopify-Hmac-Sha256',
  required: ['X-Shopify-Topic', 'X-Shopify-Shop-Domain', 'X-Shopify-API-Version', 'X-Shopify-Webhook-Id'],
};

/** Events deliveries (`shopify-*` headers, no `X-`); they may carry the `X-Shopify-*` ones too. */
const EVENTS: DeliveryKind = {
  hmacHeader: 'shopify-hmac-sha256',
  required: ['shopify-topic', 'shopify-shop-domain', 'shopify-api-version', 'shopify-webhook-id', 'shopify-event-id'],
};

/**
 * Shopify: `X-Shopify-Hmac-Sha256` (or, for events deliveries, `shopify-hmac-sha256`) holds the base64
 * HMAC-SHA256 of the raw body, keyed with the app's client secret as UTF-8. Header names match in any case. A
 * hex digest is `malformed_header`; there is no timestamp. Several secrets during rotation. As Shopify's own
 * library does, it also refuses:
 * - an empty body, even with a valid HMAC of it (`malformed_body`);
 * - after a valid HMAC, a required header missing or empty (`missing_header`, naming it): `X-Shopify-Topic`,
 *   `X-Shopify-Shop-Domain`, `X-Shopify-API-Version`, `X-Shopify-Webhook-Id`; for an events delivery (signed in
 *   `shopify-hmac-sha256`) `shopify-topic`, `shopify-shop-domain`, `shopify-api-version`, `shopify-event-id`.
 * @throws {InvalidOption} no secret or an empty one.
 * @see https://shopify.dev/docs/apps/build/webhooks/verify-deliveries; @shopify/shopify-api
 * lib/webhooks/validate.ts, header-names.ts and utils/hmac-validator.ts (MissingBody, MissingHmac, MissingHeaders).
 * @example const scheme = shopifyScheme({ secrets: process.env.SHOPIFY_API_SECRET! });
 */
export function shopifyScheme(options: { secrets: SecretsInput; name?: string }): SyncSignatureScheme {
  const name = schemeName(options.name, 'shopify');
  const hmacOf = (kind: DeliveryKind) =>
    hmacScheme({ name, secrets: options.secrets, header: kind.hmacHeader, algorithm: 'sha256', encoding: 'base64' });
  const schemes = new Map([
    [WEBHOOKS, hmacOf(WEBHOOKS)],
    [EVENTS, hmacOf(EVENTS)],
  ]);

  function verify(input: VerifyInput): VerifyResult {
    const { rawBody, headers } = checkVerifyInput(input);
    const kind = headerValue(headers, EVENTS.hmacHeader) !== undefined ? EVENTS : WEBHOOKS;
    const signed = (schemes.get(kind) as SyncSignatureScheme).verify(input);
    if (!signed.ok) return signed;
    if (rawBody.byteLength === 0) {
      return reject(name, 'malformed_body', null, 'the body is empty: Shopify never delivers an empty body');
    }
    const missing = kind.required.filter((header) => headerValue(headers, header) === undefined);
    const [first] = missing;
    if (first === undefined) return signed;
    return reject(name, 'missing_header', first, `required header(s) missing or empty: ${missing.join(', ')}`);
  }
  return { name, verify };
}
