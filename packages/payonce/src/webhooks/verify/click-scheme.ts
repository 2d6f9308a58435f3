import { createHash } from 'node:crypto';
import { decodeHex } from './bytes.js';
import { checkVerifyInput } from './check-verify-input.js';
import { matchingSecret } from './match-signature.js';
import { schemeName, secretList } from './scheme-options.js';
import { accept, reject, type SyncSignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';

/** Options of {@link clickScheme}. */
export interface ClickSchemeOptions {
  /** The service's SECRET_KEY from the Click merchant cabinet; several during rotation. */
  secrets: string | readonly string[];
  /** Scheme name in results. @default 'click' */
  name?: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const REQUIRED = ['click_trans_id', 'service_id', 'merchant_trans_id', 'amount', 'action', 'sign_time', 'sign_string'];

/**
 * Parses an `application/x-www-form-urlencoded` body into single-valued fields. `undefined` when the bytes
 * are not UTF-8 or a field appears twice (the signer and the application could read different copies).
 */
export function parseClickForm(rawBody: Uint8Array): Map<string, string> | undefined {
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    return undefined;
  }
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (fields.has(key)) return undefined;
    fields.set(key, value);
  }
  return fields;
}

/**
 * Click SHOP API (Prepare / Complete): the form field `sign_string` is the lower-case hex MD5 of
 * `click_trans_id + service_id + SECRET_KEY + merchant_trans_id + [merchant_prepare_id, Complete only] + amount
 * + action + sign_time`, over the field values exactly as received (an `amount` of `1000` and `1000.00` sign
 * differently). Missing fields, an unknown `action`, a repeated field or a `sign_string` that is not 32 hex
 * digits are `malformed_body` (Click error -8 / -3); a wrong digest is `signature_mismatch` (Click error -1).
 * `sign_time` carries no time zone and Click documents no window, so no timestamp is checked (`timestampSec`
 * is `null`); replays are caught by the receipt on `click_trans_id` + action.
 * @throws {InvalidOption} no secret or an empty one.
 * @see https://docs.click.uz/en/click-api-request/; click-llc/click-integration-php
 * click/models/BasicPaymentsErrors.php (Complete formula).
 * @example const scheme = clickScheme({ secrets: process.env.CLICK_SECRET_KEY! });
 */
export function clickScheme(options: ClickSchemeOptions): SyncSignatureScheme {
  const name = schemeName(options.name, 'click');
  const secrets = secretList(options.secrets).map((s) => (typeof s === 'string' ? s : Buffer.from(s).toString('utf8')));

  function verify(input: VerifyInput): VerifyResult {
    const { rawBody } = checkVerifyInput(input);
    const fields = parseClickForm(rawBody);
    if (fields === undefined)
      return reject(name, 'malformed_body', null, 'body is not a UTF-8 form with unique fields');
    const missing = REQUIRED.filter((f) => !fields.get(f));
    if (missing.length > 0) return reject(name, 'malformed_body', null, `missing field(s): ${missing.join(', ')}`);
    const action = fields.get('action');
    if (action !== '0' && action !== '1') return reject(name, 'malformed_body', null, 'action must be 0 or 1');
    const prepareId = fields.get('merchant_prepare_id');
    if (action === '1' && !prepareId)
      return reject(name, 'malformed_body', null, 'missing field(s): merchant_prepare_id');
    const presented = decodeHex(fields.get('sign_string') ?? '');
    if (presented === undefined || presented.byteLength !== 16) {
      return reject(name, 'malformed_body', null, 'sign_string must be 32 hex digits');
    }
    const f = (k: string): string => fields.get(k) ?? '';
    const index = matchingSecret(secrets, [presented], (secret) => {
      const signed =
        f('click_trans_id') +
        f('service_id') +
        secret +
        f('merchant_trans_id') +
        (action === '1' ? f('merchant_prepare_id') : '') +
        f('amount') +
        action +
        f('sign_time');
      return createHash('md5').update(signed, 'utf8').digest();
    });
    if (index >= 0) return accept(name, index, null);
    return reject(name, 'signature_mismatch', null, `sign_string matches none of ${secrets.length} secret(s)`);
  }
  return { name, verify };
}
