import { decodeHex, hmac, utf8 } from './bytes.js';
import { checkVerifyInput } from './check-verify-input.js';
import { headerGivenAsList, headerValue, headerValueCount } from './headers.js';
import { matchingSecret } from './match-signature.js';
import { hasSurroundingWhitespace, schemeName, secretKeys, toleranceSeconds } from './scheme-options.js';
import { accept, reject, type SyncSignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';
import { outsideWindow, parseUnixSeconds } from './unix-timestamp.js';

/** Options of {@link stripeScheme}. */
export interface StripeSchemeOptions {
  /** Endpoint signing secrets (`whsec_…`), used verbatim as HMAC keys. Several during rotation. */
  secrets: string | readonly string[];
  /**
   * Accepted distance between `t=` and the receiver clock, in seconds, in BOTH directions. stripe-node only
   * rejects old events; payonce also rejects events signed more than this far in the future. @default 300
   */
  toleranceSeconds?: number;
  /** Scheme name in results. @default 'stripe' */
  name?: string;
}

const HEADER = 'Stripe-Signature';
const SIGNATURE_BYTES = 32;

/**
 * Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…][,v0=…]` over `<t>.<raw body>`,
 * keyed with the endpoint secret as UTF-8. Any `v1` matching any configured secret accepts (Stripe sends
 * several `v1` values while an endpoint secret is being rolled); other schemes (`v0`) are ignored. The window
 * is checked after the signature, in both directions. The header must come once, as a string: several values
 * (names differing only in case) or an array (even of one value) are refused as `malformed_header`, as
 * stripe-node's `constructEvent` refuses an array ("An array was passed as a header").
 * A refused signature is answered 400 by default (`rejectionStatus`), as Stripe's webhook handler examples do
 * (`response.status(400).send(\`Webhook Error: …\`)`, https://docs.stripe.com/webhooks#verify-events).
 * @throws {InvalidOption} at construction: no secret, empty secret, bad tolerance.
 * @see https://docs.stripe.com/webhooks#verify-manually; stripe-node src/Webhooks.ts (DEFAULT_TOLERANCE 300,
 * EXPECTED_SCHEME "v1", "An array was passed as a header").
 * @example const scheme = stripeScheme({ secrets: process.env.STRIPE_WEBHOOK_SECRET! });
 */
export function stripeScheme(options: StripeSchemeOptions): SyncSignatureScheme {
  const name = schemeName(options.name, 'stripe');
  const tolerance = toleranceSeconds(options.toleranceSeconds, 300);
  const keys = secretKeys(options.secrets);
  const whitespaceHint = hasSurroundingWhitespace(options.secrets)
    ? '; a configured secret starts or ends with whitespace'
    : '';

  function verify(input: VerifyInput): VerifyResult {
    const { rawBody, headers, nowMs } = checkVerifyInput(input);
    const value = headerValue(headers, HEADER);
    if (value === undefined) return reject(name, 'missing_header', HEADER, 'header is missing');
    const count = headerValueCount(headers, HEADER);
    if (count > 1 || headerGivenAsList(headers, HEADER)) {
      const given = count > 1 ? `${count} header values` : 'an array';
      const detail = `given as ${given}; Stripe sends one Stripe-Signature header`;
      return reject(name, 'malformed_header', HEADER, detail);
    }

    const timestamps: string[] = [];
    const v1: string[] = [];
    for (const item of value.split(',')) {
      const at = item.indexOf('=');
      if (at <= 0) continue;
      const key = item.slice(0, at).trim();
      const val = item.slice(at + 1).trim();
      if (key === 't') timestamps.push(val);
      else if (key === 'v1') v1.push(val);
    }
    const [t] = timestamps;
    if (t === undefined || timestamps.length > 1) {
      return reject(name, 'malformed_header', HEADER, 'expected exactly one t= timestamp');
    }
    const parsed = parseUnixSeconds(t);
    if (!parsed.ok) return reject(name, parsed.reason, HEADER, parsed.detail);
    if (v1.length === 0) return reject(name, 'no_supported_signature', HEADER, 'no v1 signature (v0 is not checked)');

    const candidates = v1
      .map((s) => decodeHex(s))
      .filter((b): b is Uint8Array => b !== undefined && b.byteLength === SIGNATURE_BYTES);
    const prefix = utf8(`${parsed.seconds}.`);
    const index = matchingSecret(keys, candidates, (key) => hmac('sha256', key, [prefix, rawBody]));
    if (index >= 0) {
      const late = outsideWindow(parsed.seconds, nowMs, tolerance);
      if (late) return reject(name, late.reason, HEADER, late.detail);
      return accept(name, index, parsed.seconds);
    }
    return reject(
      name,
      'signature_mismatch',
      HEADER,
      `${v1.length} v1 signature(s), ${candidates.length} well-formed, none matches any of ${keys.length} secret(s)${whitespaceHint}`,
    );
  }
  return { name, rejectionStatus: 400, verify };
}
