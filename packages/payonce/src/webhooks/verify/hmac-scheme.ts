import { InvalidOption } from '../../core/errors.js';
import { decodeBase64, decodeHex, HMAC_DIGEST_BYTES, type HmacAlgorithm, hmac, isVisibleAscii, utf8 } from './bytes.js';
import { checkVerifyInput } from './check-verify-input.js';
import { headerValue } from './headers.js';
import { matchingSecret } from './match-signature.js';
import { headerName, type SecretsInput, schemeName, secretKeys, toleranceSeconds } from './scheme-options.js';
import { accept, reject, type SyncSignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';
import { outsideWindow, parseUnixSeconds } from './unix-timestamp.js';

/** Options of {@link hmacScheme}. */
export interface HmacSchemeOptions {
  /** Scheme name in results. @default 'hmac' */
  name?: string;
  /** Shared secrets: strings are used as their UTF-8 bytes, `Uint8Array`s as raw keys. Several during rotation. */
  secrets: SecretsInput;
  /** Header carrying the signature, e.g. `X-Hub-Signature-256`. */
  header: string;
  algorithm: HmacAlgorithm;
  /** How the digest is written in the header: `hex` (either case) or padded standard `base64`. */
  encoding: 'hex' | 'base64';
  /** Text that must precede the encoded digest, case-sensitive, e.g. `sha256=`. @default '' */
  prefix?: string;
  /** Header carrying the signed Unix-seconds timestamp; when set, the window is enforced. */
  timestampHeader?: string;
  /** Window around the timestamp, seconds, both directions (only with `timestampHeader`). @default 300 */
  toleranceSeconds?: number;
  /**
   * What is signed: a template with `{body}` exactly once (the raw bytes, untouched), optional `{timestamp}`
   * (the timestamp header's text, requires `timestampHeader`) and `{header:Name}` (another header's value,
   * visible ASCII). Other text is literal. @default '{body}', or '{timestamp}.{body}' with `timestampHeader`
   */
  signedContent?: string;
}

type Part =
  | { kind: 'text'; bytes: Uint8Array }
  | { kind: 'body' }
  | { kind: 'timestamp' }
  | { kind: 'header'; name: string };

function parseTemplate(template: string, hasTimestamp: boolean): readonly Part[] {
  if (/[{}]/.test(template.replace(/\{[^{}]*\}/g, ''))) throw new InvalidOption('signedContent', 'unbalanced brace');
  const parts: Part[] = [];
  let bodies = 0;
  let last = 0;
  for (const m of template.matchAll(/\{([^{}]*)\}/g)) {
    if (m.index > last) parts.push({ kind: 'text', bytes: utf8(template.slice(last, m.index)) });
    const token = m[1] ?? '';
    if (token === 'body') {
      bodies++;
      parts.push({ kind: 'body' });
    } else if (token === 'timestamp') {
      if (!hasTimestamp) throw new InvalidOption('signedContent', '{timestamp} requires timestampHeader');
      parts.push({ kind: 'timestamp' });
    } else if (token.startsWith('header:')) {
      parts.push({ kind: 'header', name: headerName(token.slice('header:'.length), 'signedContent') });
    } else {
      throw new InvalidOption('signedContent', `unknown placeholder {${token}}`);
    }
    last = m.index + m[0].length;
  }
  const rest = template.slice(last);
  if (rest !== '') parts.push({ kind: 'text', bytes: utf8(rest) });
  if (bodies !== 1) throw new InvalidOption('signedContent', 'must contain {body} exactly once');
  return parts;
}

/**
 * A configurable HMAC scheme: the header holds `prefix + encode(HMAC(secret, signedContent))`. Covers most
 * "HMAC of the body in a header" providers; GitHub and Shopify are presets of it. A header that lacks the
 * prefix, is not valid hex/base64 or decodes to the wrong length is `malformed_header`; a well-formed digest
 * that no secret produces is `signature_mismatch`.
 * @throws {InvalidOption} at construction: no secret, bad header name, unknown algorithm or encoding, bad
 * template, bad tolerance.
 * @see RFC 2104 (HMAC); docs/design.md §5 "Signature schemes".
 * @example hmacScheme({ secrets: 'k', header: 'X-Signature', algorithm: 'sha512', encoding: 'base64',
 *   timestampHeader: 'X-Timestamp', signedContent: '{timestamp}:{body}' });
 */
export function hmacScheme(options: HmacSchemeOptions): SyncSignatureScheme {
  const name = schemeName(options.name, 'hmac');
  const keys = secretKeys(options.secrets);
  const header = headerName(options.header, 'header');
  const { algorithm, encoding } = options;
  if (!Object.hasOwn(HMAC_DIGEST_BYTES, algorithm))
    throw new InvalidOption('algorithm', 'must be sha1, sha256 or sha512');
  if (encoding !== 'hex' && encoding !== 'base64') throw new InvalidOption('encoding', 'must be hex or base64');
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string') throw new InvalidOption('prefix', 'must be a string');
  const tsHeader =
    options.timestampHeader === undefined ? undefined : headerName(options.timestampHeader, 'timestampHeader');
  const tolerance = toleranceSeconds(options.toleranceSeconds, 300);
  const template = options.signedContent ?? (tsHeader === undefined ? '{body}' : '{timestamp}.{body}');
  const parts = parseTemplate(template, tsHeader !== undefined);
  const digestBytes = HMAC_DIGEST_BYTES[algorithm];
  const decode = encoding === 'hex' ? decodeHex : decodeBase64;

  function verify(input: VerifyInput): VerifyResult {
    const { rawBody, headers, nowMs } = checkVerifyInput(input);
    const value = headerValue(headers, header);
    if (value === undefined) return reject(name, 'missing_header', header, 'header is missing');
    if (!value.startsWith(prefix))
      return reject(name, 'malformed_header', header, `value does not start with "${prefix}"`);
    const presented = decode(value.slice(prefix.length));
    if (presented === undefined || presented.byteLength !== digestBytes) {
      return reject(
        name,
        'malformed_header',
        header,
        `expected ${encoding} of a ${digestBytes}-byte ${algorithm} digest`,
      );
    }

    let seconds: number | null = null;
    let tsText = '';
    if (tsHeader !== undefined) {
      const ts = headerValue(headers, tsHeader);
      if (ts === undefined) return reject(name, 'missing_header', tsHeader, 'timestamp header is missing');
      const parsed = parseUnixSeconds(ts);
      if (!parsed.ok) return reject(name, parsed.reason, tsHeader, parsed.detail);
      seconds = parsed.seconds;
      tsText = ts;
    }
    const content: Uint8Array[] = [];
    for (const part of parts) {
      if (part.kind === 'body') content.push(rawBody);
      else if (part.kind === 'text') content.push(part.bytes);
      else if (part.kind === 'timestamp') content.push(utf8(tsText));
      else {
        const v = headerValue(headers, part.name);
        if (v === undefined) return reject(name, 'missing_header', part.name, 'signed header is missing');
        if (!isVisibleAscii(v))
          return reject(name, 'malformed_header', part.name, 'signed header must be visible ASCII');
        content.push(utf8(v));
      }
    }

    const index = matchingSecret(keys, [presented], (key) => hmac(algorithm, key, content));
    if (index >= 0) {
      if (seconds !== null && tsHeader !== undefined) {
        const late = outsideWindow(seconds, nowMs, tolerance);
        if (late) return reject(name, late.reason, tsHeader, late.detail);
      }
      return accept(name, index, seconds);
    }
    return reject(name, 'signature_mismatch', header, `digest matches none of ${keys.length} secret(s)`);
  }
  return { name, verify };
}
