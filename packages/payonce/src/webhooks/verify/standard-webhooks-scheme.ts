import { Webhook } from 'standardwebhooks';
import { InvalidOption } from '../../core/errors.js';
import { decodeBase64, isVisibleAscii } from './bytes.js';
import { checkVerifyInput } from './check-verify-input.js';
import { type HeadersInput, headerValue } from './headers.js';
import { matchingSecret } from './match-signature.js';
import { type SecretsInput, schemeName, secretList, toleranceSeconds } from './scheme-options.js';
import { accept, reject, type SyncSignatureScheme, type VerifyResult } from './signature-scheme.js';
import { outsideWindow, parseUnixSeconds } from './unix-timestamp.js';

/** Options of {@link standardWebhooksScheme}. */
export interface StandardWebhooksSchemeOptions {
  /**
   * Signing secrets, as the provider shows them: `whsec_` + base64 (the prefix is optional), or the raw key
   * bytes. Several at once during rotation.
   */
  secrets: SecretsInput;
  /** Accepted distance between `webhook-timestamp` and the receiver clock, both directions. @default 300 */
  toleranceSeconds?: number;
  /** Scheme name in results. @default 'standard-webhooks' */
  name?: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SIGNATURE_BYTES = 32;

/** `svix-*` first, then the unbranded `webhook-*` name, as the Svix libraries map them. */
function lookup(headers: HeadersInput, field: 'id' | 'timestamp' | 'signature'): [string, string | undefined] {
  const svix = headerValue(headers, `svix-${field}`);
  if (svix !== undefined) return [`svix-${field}`, svix];
  return [`webhook-${field}`, headerValue(headers, `webhook-${field}`)];
}

/**
 * Standard Webhooks (and Svix, which sends the same scheme under `svix-id` / `svix-timestamp` /
 * `svix-signature`): `webhook-signature` is a space-separated list of `v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded secret. Any one matching `v1`
 * entry under any configured secret accepts; other versions (`v1a`, `v2`) are skipped. The HMAC is computed
 * by the `standardwebhooks` package (`Webhook#sign`); header parsing, the timestamp rules and the comparison
 * are payonce's, with the receiver clock injected as `nowMs`. The body must be valid UTF-8 (JSON, RFC 8259
 * §8.1): it is decoded without replacement characters, so the signed text is exactly the received bytes; an
 * invalid byte sequence is `malformed_body`, never a lossy decode. A refused signature is answered 400 by default
 * (`rejectionStatus`), as Svix's verification examples do (`except WebhookVerificationError: return ('', 400)`,
 * https://docs.svix.com/receiving/verifying-payloads/how); the spec itself names no status.
 * @throws {InvalidOption} at construction: no secret, or a secret that is not `whsec_` + base64.
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 * ("Signature scheme", "Verifying"); https://docs.svix.com/receiving/verifying-payloads/how-manual.
 * @example const scheme = standardWebhooksScheme({ secrets: [process.env.WH_SECRET_NEW, process.env.WH_SECRET_OLD] });
 * const result = scheme.verify({ rawBody, headers: req.headers, nowMs: Date.now() });
 */
export function standardWebhooksScheme(options: StandardWebhooksSchemeOptions): SyncSignatureScheme {
  const name = schemeName(options.name, 'standard-webhooks');
  const tolerance = toleranceSeconds(options.toleranceSeconds, 300);
  const signers = secretList(options.secrets).map((secret, i) => {
    try {
      return typeof secret === 'string' ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
    } catch {
      throw new InvalidOption('secrets', `entry ${i} is not a Standard Webhooks secret (whsec_ followed by base64)`);
    }
  });

  function verify(input: Parameters<SyncSignatureScheme['verify']>[0]): VerifyResult {
    const { rawBody, headers, nowMs } = checkVerifyInput(input);
    const [idHeader, id] = lookup(headers, 'id');
    const [tsHeader, ts] = lookup(headers, 'timestamp');
    const [sigHeader, signatures] = lookup(headers, 'signature');
    if (id === undefined) return reject(name, 'missing_header', idHeader, 'message id header is missing');
    if (ts === undefined) return reject(name, 'missing_header', tsHeader, 'timestamp header is missing');
    if (signatures === undefined) return reject(name, 'missing_header', sigHeader, 'signature header is missing');
    if (!isVisibleAscii(id)) return reject(name, 'malformed_header', idHeader, 'message id must be visible ASCII');
    const parsed = parseUnixSeconds(ts);
    if (!parsed.ok) return reject(name, parsed.reason, tsHeader, parsed.detail);

    const entries = signatures.split(' ').filter((e) => e !== '');
    const v1 = entries.filter((e) => e.startsWith('v1,'));
    if (v1.length === 0) {
      return reject(name, 'no_supported_signature', sigHeader, 'no v1 signature (other versions are not checked)');
    }
    const candidates = v1
      .map((e) => decodeBase64(e.slice(3)))
      .filter((b): b is Uint8Array => b !== undefined && b.byteLength === SIGNATURE_BYTES);

    let body: string;
    try {
      body = UTF8.decode(rawBody);
    } catch {
      return reject(name, 'malformed_body', null, 'body is not valid UTF-8; Standard Webhooks payloads are UTF-8 JSON');
    }
    const signedAt = new Date(parsed.seconds * 1000);
    const index = matchingSecret(signers, candidates, (signer) =>
      decodeBase64(signer.sign(id, signedAt, body).slice(3)),
    );
    if (index >= 0) {
      const late = outsideWindow(parsed.seconds, nowMs, tolerance);
      if (late) return reject(name, late.reason, tsHeader, late.detail);
      return accept(name, index, parsed.seconds);
    }
    return reject(
      name,
      'signature_mismatch',
      sigHeader,
      `${v1.length} v1 signature(s), ${candidates.length} well-formed, none matches any of ${signers.length} secret(s)`,
    );
  }
  return { name, rejectionStatus: 400, verify };
}
