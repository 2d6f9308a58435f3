import { createHash } from 'node:crypto';
import { sha256Hex } from '../core/sha256-hex.js';
import { canonicalJson } from './canonical-json.js';
import type { HttpExchange } from './http-exchange.js';
import { plainStringArrayJson } from './string-array-json.js';

/** Computes the fingerprint of a request: a string (SHA-256 hex here) compared on every reuse of a key. */
export type RequestFingerprint = (exchange: HttpExchange) => string;

/** Bodies up to this many bytes are copied after the head and hashed in one call; larger ones are streamed. */
const ONE_SHOT_MAX_BODY_BYTES = 16_384;

function digest(exchange: HttpExchange, bodyForm: 'raw' | 'canonical-json', body: Uint8Array): string {
  // One line of JSON (never a raw newline) before the body: method, route, target and body cannot run into each other.
  const parts = [exchange.method, exchange.route, exchange.target, bodyForm];
  const plain = plainStringArrayJson(parts); // pure ASCII when not null: one byte per character
  const head = `payonce-http-fingerprint/2\n${plain ?? JSON.stringify(parts)}\n`;
  if (body.byteLength > ONE_SHOT_MAX_BODY_BYTES) return createHash('sha256').update(head).update(body).digest('hex');
  // A small body: one digest over head + body (the same bytes as two updates) without a Hash object per request,
  // written into one buffer (no copy of the head of its own).
  const headLength = plain === null ? Buffer.byteLength(head) : head.length;
  const bytes = Buffer.allocUnsafe(headLength + body.byteLength);
  bytes.write(head, 0, headLength, plain === null ? 'utf8' : 'latin1');
  bytes.set(body, headLength);
  return sha256Hex(bytes);
}

/**
 * The default fingerprint: SHA-256 (lower-case hex) over the method, the route pattern, the concrete request
 * target (path and query) and the raw body bytes exactly as received. A retry must resend the same bytes, which every retrying HTTP client does; a body that
 * differs in any byte (member order, whitespace, `1.0` vs `1`) is a different request → 422 on key reuse.
 * Chosen as the default because it never confuses two requests: nothing is parsed or normalised.
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2.4 "Idempotency Fingerprint"; docs/design.md §4.
 */
export const rawBodyFingerprint: RequestFingerprint = (exchange) => digest(exchange, 'raw', exchange.body);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

function isJson(exchange: HttpExchange): boolean {
  const header = exchange.headers['content-type'];
  const value = typeof header === 'string' ? header : header?.[0];
  const mediaType = value?.split(';', 1)[0]?.trim();
  return mediaType !== undefined && JSON_MEDIA_TYPE.test(mediaType);
}

/**
 * An opt-in fingerprint for clients that re-serialise the body on retry: a JSON body (`application/json` or
 * `application/*+json`, valid UTF-8, strict JSON, no repeated member) is hashed in its `canonicalJson` form, so
 * member order and whitespace do not matter; array order and number literals do. Any other body is hashed raw,
 * as `rawBodyFingerprint` does. Method, route pattern and concrete target are always covered.
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2.4; RFC 8785 (member order).
 */
export const canonicalJsonFingerprint: RequestFingerprint = (exchange) => {
  if (isJson(exchange)) {
    let text: string | null = null;
    try {
      text = utf8.decode(exchange.body);
    } catch {
      text = null;
    }
    const canonical = text === null ? null : canonicalJson(text);
    if (canonical !== null) return digest(exchange, 'canonical-json', new TextEncoder().encode(canonical));
  }
  return digest(exchange, 'raw', exchange.body);
};
