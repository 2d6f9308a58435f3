import * as crypto from 'node:crypto';

/** Raw payload bytes, or a string that is hashed as its UTF-8 encoding. */
export type PayloadBytes = Uint8Array | string;

/**
 * SHA-256 of the raw payload bytes, lower-case hex (64 characters). Strings are hashed as UTF-8 with no
 * normalisation; pass the exact bytes you received, never a re-serialised object.
 * @see SPEC §3 "Optional payload fingerprint".
 */
export function fingerprint(payload: PayloadBytes): string {
  return sha256Hex(payload);
}

/** One-shot `crypto.hash` (Node ≥ 20.12: no Hash object per call), else `createHash`; the same digest either way. */
const oneShot = (crypto as { hash?: (algorithm: string, data: PayloadBytes, encoding: 'hex') => string }).hash;
const sha256Hex: (payload: PayloadBytes) => string =
  typeof oneShot === 'function'
    ? (payload) => oneShot('sha256', payload, 'hex')
    : (payload) => crypto.createHash('sha256').update(payload).digest('hex');
