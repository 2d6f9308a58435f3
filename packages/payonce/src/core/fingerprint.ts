import { sha256Hex } from './sha256-hex.js';

/** Raw payload bytes, or a string that is hashed as its UTF-8 encoding. */
export type PayloadBytes = Uint8Array | string;

/**
 * SHA-256 of the raw payload bytes, lower-case hex (64 characters). Strings are hashed as UTF-8 with no
 * normalisation; pass the exact bytes you received, never a re-serialised object.
 * @see docs/design.md §3 "Payload fingerprint".
 */
export function fingerprint(payload: PayloadBytes): string {
  return sha256Hex(payload);
}
