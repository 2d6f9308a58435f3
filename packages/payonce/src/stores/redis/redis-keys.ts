/**
 * The Redis key names of one store. Every key contains the hash tag `{receipts}` right after the prefix, so
 * in Redis Cluster all of a store's keys hash to one slot and every script may touch all of them.
 *
 * - `<prefix>{receipts}:r:<id>` — a hash per receipt (fields: receipt-fields.ts), where `<id>` is
 *   `<n>:<provider>:<externalId>` and `<n>` is the UTF-8 byte length of `provider` in decimal. The length prefix
 *   makes the encoding injective even though either part may contain `:`: `('a:b', 'c')` → `3:a:b:c`, `('a', 'b:c')`
 *   → `1:a:b:c`. Bytes are compared exactly (`evt_A` ≠ `evt_a`). The purge finds them by SCAN (`receiptPattern`).
 * - `<prefix>{receipts}:finished-events` — a pub/sub channel (not a key) announcing each finished `<id>` that a
 *   duplicate waits for.
 * - Left by the previous layout (before issue #17), read only to take old receipts out of them: the sorted sets
 *   `<prefix>{receipts}:finished` and `<prefix>{receipts}:finished:<provider>` of finished receipts by finish time.
 */
export interface RedisKeys {
  /** The common start of every receipt hash key; a receipt's key is `receiptBase + idOf(key)`. */
  readonly receiptBase: string;
  /**
   * The pub/sub channel `<prefix>{receipts}:finished-events` on which a finish a duplicate waits for is announced with
   * the receipt's `<id>` (same hash tag, so a sharded `SPUBLISH` goes to the store's shard).
   */
  readonly finishedChannel: string;
  /** The previous layout's sorted set of every finished receipt (emptied by takeover and purge, never written). */
  readonly legacyFinished: string;
  /** The common start of the previous layout's per-provider finished sets (`legacyFinishedByProviderBase + provider`). */
  readonly legacyFinishedByProviderBase: string;
}

/** Key names for a store with `prefix`. */
export function redisKeys(prefix: string): RedisKeys {
  return Object.freeze({
    receiptBase: `${prefix}{receipts}:r:`,
    finishedChannel: `${prefix}{receipts}:finished-events`,
    legacyFinished: `${prefix}{receipts}:finished`,
    legacyFinishedByProviderBase: `${prefix}{receipts}:finished:`,
  });
}

/** The previous layout's per-provider finished sorted set of `provider` (byte-exact: the provider ends the key). */
export function legacyFinishedByProviderKey(keys: RedisKeys, provider: string): string {
  return keys.legacyFinishedByProviderBase + provider;
}

/** The injective `<id>` of a request key (stores/receipt-id.ts), the end of each receipt hash's name. */
export { receiptIdOf } from '../receipt-id.js';

/** `text` with every glob-special character of `SCAN MATCH` (`*`, `?`, `[`, `]`, `\`) escaped by a backslash. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * The `SCAN MATCH` pattern of the receipt hashes a purge looks at: every receipt of the store, or with `provider`
 * only that provider's (`<base><n>:<provider>:*`, the byte length making it exact: `a` never matches `a:b`'s
 * receipts). `clientPrefix` is the client's own `keyPrefix`, which ioredis does not put before a pattern.
 */
export function receiptPattern(keys: RedisKeys, clientPrefix: string, provider: string | undefined): string {
  const scope = provider === undefined ? '' : `${Buffer.byteLength(provider, 'utf8')}:${provider}:`;
  return `${escapeGlob(clientPrefix + keys.receiptBase + scope)}*`;
}
