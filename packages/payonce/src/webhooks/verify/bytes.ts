import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two byte strings. Uses `crypto.timingSafeEqual` only on equal lengths, so it
 * never throws; different lengths return `false` after a same-cost dummy comparison (the expected length is
 * public: it is the digest size).
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict hex decoding (either case, even length); `undefined` for anything else. Never throws. */
export function decodeHex(text: string): Uint8Array | undefined {
  if (!HEX.test(text)) return undefined;
  return Buffer.from(text, 'hex');
}

/**
 * Strict, canonical, padded base64 decoding (RFC 4648 §4); `undefined` for anything else, including unused
 * bits set in the last character. Never throws. Node's own decoder skips invalid characters, so it is not
 * used on its own.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** HMAC algorithms a configurable scheme may use, with their digest sizes in bytes. */
export const HMAC_DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const;

/** An HMAC algorithm name. */
export type HmacAlgorithm = keyof typeof HMAC_DIGEST_BYTES;

/** HMAC of the concatenation of `parts`, fed piecewise so the body bytes are never copied or re-encoded. */
export function hmac(algorithm: HmacAlgorithm, key: Uint8Array, parts: readonly Uint8Array[]): Uint8Array {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** True when `text` is one or more visible ASCII characters (no spaces, no control or non-ASCII). */
export function isVisibleAscii(text: string): boolean {
  return VISIBLE_ASCII.test(text);
}
