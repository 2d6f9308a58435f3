import { InvalidOption } from './errors.js';
import type { StoredResponse } from './receipt.js';

/**
 * What a handler may return. Everything is optional: `status` defaults to 200, `headers` to none, `body`
 * to empty. A string body is stored as its UTF-8 bytes; bytes (`Uint8Array`, `Buffer`, any `ArrayBufferView`,
 * an `ArrayBuffer`) are stored exactly as given.
 */
export interface ResponseInit {
  status?: number;
  headers?: Record<string, string>;
  body?: Uint8Array | ArrayBufferView | ArrayBuffer | string;
}

const utf8 = new TextEncoder();
/** Strings up to this many UTF-16 units encode to < 4 KiB (3 bytes per unit at most): Buffer's pooled size. */
const SHORT_STRING_CHARS = 1_024;

function bodyBytes(raw: unknown): Uint8Array {
  if (raw === undefined || raw === null) return new Uint8Array(0);
  if (typeof raw === 'string') {
    // A short string is encoded into Node's Buffer pool and copied out (~3× cheaper than TextEncoder for a few
    // dozen characters); the result is the same plain Uint8Array with a buffer of its own either way.
    return raw.length <= SHORT_STRING_CHARS ? new Uint8Array(Buffer.from(raw, 'utf8')) : utf8.encode(raw);
  }
  if (ArrayBuffer.isView(raw)) return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  if (raw instanceof ArrayBuffer) return new Uint8Array(raw);
  throw new InvalidOption(
    'response.body',
    `must be a string or bytes, got ${Array.isArray(raw) ? 'array' : typeof raw}`,
  );
}

/**
 * Turns a handler's return value into the exact `StoredResponse` that will be persisted and replayed.
 * @param maxBodyBytes largest body accepted, in bytes. @default Infinity
 * @throws {InvalidOption} if the value is not an object (or nothing), `status` is not an integer 100–599, a header value is not a string, the body is not
 *   a string or bytes, or it is larger than `maxBodyBytes`.
 */
export function toStoredResponse(init: unknown, maxBodyBytes = Number.POSITIVE_INFINITY): StoredResponse {
  if (init !== undefined && init !== null && (typeof init !== 'object' || Array.isArray(init))) {
    throw new InvalidOption('response', `must be an object { status, headers, body } or nothing, got ${typeof init}`);
  }
  const response = (init ?? {}) as ResponseInit;
  const status = response.status ?? 200;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new InvalidOption('response.status', `must be an integer 100-599, got ${String(status)}`);
  }
  const headers: Record<string, string> = {};
  const given = response.headers;
  if (given !== undefined && given !== null) {
    for (const name of Object.keys(given)) {
      const value = given[name];
      if (typeof value !== 'string') throw new InvalidOption(`response.headers.${name}`, 'must be a string');
      headers[name] = value;
    }
  }
  const body = bodyBytes(response.body);
  if (body.byteLength > maxBodyBytes) {
    throw new InvalidOption('response.body', `is ${body.byteLength} bytes, more than maxResponseBytes ${maxBodyBytes}`);
  }
  return Object.freeze({ status, headers: Object.freeze(headers), body });
}
