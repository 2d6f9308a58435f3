import type { RequestKey } from '../../core/request-key.js';

/**
 * The Redis key names of one store. Every key contains the hash tag `{receipts}` right after the prefix, so
 * in Redis Cluster all of a store's keys hash to one slot and every script may touch all of them.
 *
 * - `<prefix>{receipts}:r:<id>` — a hash per receipt, where `<id>` is `<n>:<provider>:<externalId>` and `<n>`
 *   is the UTF-8 byte length of `provider` in decimal. The length prefix makes the encoding injective even
 *   though either part may contain `:`: `('a:b', 'c')` → `3:a:b:c`, `('a', 'b:c')` → `1:a:b:c`. Bytes are compared exactly (`evt_A` ≠ `evt_a`).
 * - `<prefix>{receipts}:finished` — a sorted set of `<id>`s of finished receipts scored by `finished_at`
 *   (Unix epoch ms), read by `purgeBatch` without a provider.
 * - `<prefix>{receipts}:finished:<provider>` — the same, for one provider's receipts only (the whole rest of
 *   the key is the provider, so the name is injective), read by `purgeBatch` with that provider. A finished
 *   receipt is in both sets; every script that adds, moves or deletes it updates both.
 * - `<prefix>{receipts}:finished-events` — a pub/sub channel (not a key) announcing each finished `<id>`.
 */
export interface RedisKeys {
  /** Sorted set `<id>` → finished_at (ms) of every `completed` or `failed` receipt. */
  readonly finished: string;
  /** The common start of every per-provider finished set; one provider's set is `finishedByProviderBase + provider`. */
  readonly finishedByProviderBase: string;
  /** The common start of every receipt hash key; a receipt's key is `receiptBase + idOf(key)`. */
  readonly receiptBase: string;
  /**
   * The pub/sub channel `<prefix>{receipts}:finished-events` on which complete and fail announce the finished
   * receipt's `<id>` (same hash tag, so a sharded `SPUBLISH` goes to the store's shard).
   */
  readonly finishedChannel: string;
}

/** Key names for a store with `prefix`. */
export function redisKeys(prefix: string): RedisKeys {
  return Object.freeze({
    finished: `${prefix}{receipts}:finished`,
    finishedByProviderBase: `${prefix}{receipts}:finished:`,
    receiptBase: `${prefix}{receipts}:r:`,
    finishedChannel: `${prefix}{receipts}:finished-events`,
  });
}

/** The per-provider finished sorted set of `provider` (byte-exact: the provider's UTF-8 text ends the key). */
export function finishedByProviderKey(keys: RedisKeys, provider: string): string {
  return keys.finishedByProviderBase + provider;
}

/** The injective `<id>` of a request key: `<UTF-8 byte length of provider>:<provider>:<externalId>`. */
export function receiptIdOf(key: RequestKey): string {
  return `${Buffer.byteLength(key.provider, 'utf8')}:${key.provider}:${key.externalId}`;
}
