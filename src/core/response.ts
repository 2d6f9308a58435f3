import { InvalidOption } from './errors.js';
import type { StoredResponse } from './receipt.js';

/**
 * What a handler may return. Everything is optional: `status` defaults to 200, `headers` to none, `body`
 * to empty. A string body is stored as its UTF-8 bytes; a `Uint8Array` is stored as is.
 */
export interface ResponseInit {
  status?: number;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

const utf8 = new TextEncoder();

/**
 * Turns a handler's return value into the exact `StoredResponse` that will be persisted and replayed.
 * @throws {InvalidOption} if `status` is not an integer 100–599 or a header value is not a string.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: accepts what a `void` handler resolves to.
export function toStoredResponse(init: ResponseInit | undefined | void): StoredResponse {
  const status = init?.status ?? 200;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new InvalidOption('response.status', `must be an integer 100-599, got ${String(status)}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init?.headers ?? {})) {
    if (typeof value !== 'string') throw new InvalidOption(`response.headers.${name}`, 'must be a string');
    headers[name] = value;
  }
  const raw = init?.body ?? new Uint8Array(0);
  const body = typeof raw === 'string' ? utf8.encode(raw) : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  return Object.freeze({ status, headers: Object.freeze(headers), body });
}
