import type { RequestKey } from '../../core/request-key.js';

/**
 * The Redis key names of one store. Every key contains the hash tag `{receipts}` right after the prefix, so
 * in Redis Cluster all of a store's keys hash to one slot and every script may touch all of them.
 *
 * - `<prefix>{receipts}:r:<id>` — a hash per receipt, where `<id>` is `<n>:<provider>:<externalId>` and `<n>`
 *   is the UTF-8 byte length of `provider` in decimal. The length prefix makes the encoding injective even
 *   though either part may contain `:`: `('a:b', 'c')` → `3:a:b:c`, `('a', 'b:c')` → `1:a:b:c`. Bytes are compared exactly (`evt_A` ≠ `evt_a`).
 * - `<prefix>{receipts}:finished` — a sorted set of `<id>`s of finished receipts scored by `finished_at`
 *   (Unix epoch ms), read by `purgeBatch`.
 */
export interface RedisKeys {
  /** Sorted set `<id>` → finished_at (ms) of every `completed` or `failed` receipt. */
  readonly finished: string;
  /** The common start of every receipt hash key; a receipt's key is `receiptBase + idOf(key)`. */
  readonly receiptBase: string;
}

/** Key names for a store with `prefix`. */
export function redisKeys(prefix: string): RedisKeys {
  return Object.freeze({ finished: `${prefix}{receipts}:finished`, receiptBase: `${prefix}{receipts}:r:` });
}

/** The injective `<id>` of a request key: `<UTF-8 byte length of provider>:<provider>:<externalId>`. */
export function receiptIdOf(key: RequestKey): string {
  return `${Buffer.byteLength(key.provider, 'utf8')}:${key.provider}:${key.externalId}`;
}
