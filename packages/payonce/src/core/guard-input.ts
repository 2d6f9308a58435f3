import { InvalidOption, InvalidRequestKey } from './errors.js';
import { type PayloadBytes, fingerprint as sha256Fingerprint } from './fingerprint.js';
import { kindOf } from './options.js';
import { RequestKey } from './request-key.js';

// The checks the guard runs on what a caller passes, before any store call (callers from JavaScript have no type
// checker). Every message names what a wrong argument was, never its value.

/**
 * `key` as a `RequestKey`: itself, or a plain `{ provider, externalId }` checked as the constructor checks it.
 * @throws {InvalidRequestKey} not an object, or a part that is not a valid key part.
 */
export function asKey(key: RequestKey): RequestKey {
  if (key instanceof RequestKey) return key;
  const loose: unknown = key;
  if (typeof loose !== 'object' || loose === null) throw new InvalidRequestKey('provider', 'key must be a RequestKey');
  const { provider, externalId } = loose as Partial<RequestKey>;
  return new RequestKey(provider as string, externalId as string);
}

/** @throws {InvalidOption} `handler` is not a function. */
export function checkHandler(handler: unknown): void {
  if (typeof handler !== 'function') throw new InvalidOption('handler', `must be a function, got ${kindOf(handler)}`);
}

/** Fingerprints are compared as given: printable ASCII, 1–128 characters (a SHA-256 hex digest is 64). */
const FINGERPRINT = /^[\x21-\x7e]{1,128}$/;

/** The payload options of a call: raw bytes to hash, or a precomputed fingerprint (which wins). */
export interface FingerprintOptions {
  readonly payload?: PayloadBytes;
  readonly fingerprint?: string;
}

/**
 * The fingerprint a call claims with: `fingerprint` as given, else the SHA-256 hex of `payload`, else `null`.
 * @throws {InvalidOption} `options` not an object, a malformed `fingerprint` (not 1–128 printable ASCII
 *   characters), or a `payload` that is neither bytes nor a string.
 */
export function fingerprintOf(options: FingerprintOptions): string | null {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOption('options', `must be an object { payload?, fingerprint? }, got ${kindOf(options)}`);
  }
  if (options.fingerprint !== undefined) {
    if (typeof options.fingerprint !== 'string' || !FINGERPRINT.test(options.fingerprint)) {
      throw new InvalidOption('fingerprint', 'must be 1-128 printable ASCII characters (e.g. SHA-256 hex)');
    }
    return options.fingerprint;
  }
  const { payload } = options;
  if (payload === undefined) return null;
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new InvalidOption(
      'payload',
      `must be the raw bytes (Uint8Array, Buffer) or a string, got ${kindOf(payload)}`,
    );
  }
  return sha256Fingerprint(payload);
}

/**
 * The purge cut-off in whole epoch ms: a `Date` as is, a number as an age in ms before `nowMs`.
 * @throws {InvalidOption} an invalid `Date`, or an age that is negative, non-finite or not a number.
 */
export function cutoffOf(olderThan: Date | number, nowMs: number): number {
  if (olderThan instanceof Date) {
    const ms = olderThan.getTime();
    if (!Number.isFinite(ms)) throw new InvalidOption('olderThan', 'is an invalid Date');
    return Math.floor(ms);
  }
  if (typeof olderThan !== 'number' || !Number.isFinite(olderThan) || olderThan < 0) {
    throw new InvalidOption('olderThan', `must be a Date or a non-negative age in ms, got ${String(olderThan)}`);
  }
  return Math.floor(nowMs - olderThan);
}

/**
 * A clock reading as whole Unix epoch ms.
 * @throws {InvalidOption} (option `clock`) the clock returned a non-number, NaN, a negative or an unsafe value.
 */
export function epochMs(raw: number): number {
  const ms = Math.floor(raw);
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new InvalidOption('clock', `now() must return Unix epoch milliseconds, got ${String(raw)}`);
  }
  return ms;
}
