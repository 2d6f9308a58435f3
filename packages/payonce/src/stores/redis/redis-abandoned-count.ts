import { commands } from './redis-commands.js';
import { type RedisKeys, receiptPattern } from './redis-keys.js';
import type { RedisLike } from './redis-like.js';
import { scanNodesOf } from './redis-purge.js';
import { countAbandonedScript } from './scripts/count-abandoned.js';

/** Keys asked for per SCAN step (a hint to Redis, as in the purge). */
const SCAN_COUNT = 1_000;

/**
 * `RedisStore.countAbandoned`: walks the store's receipt hashes with `SCAN MATCH` on every server the purge scans
 * (each master of a Cluster; one of them holds the store's hash-tag slot) and counts each page's abandoned claims with
 * scripts/count-abandoned.ts. No index is kept, so the count costs a walk over the server's whole key table, like a
 * purge (docs/design.md §3 "Purge"); a receipt that changes during the walk may be counted in either state.
 */
export async function countAbandonedClaims(
  client: RedisLike,
  keys: RedisKeys,
  send: (run: () => Promise<unknown>) => Promise<unknown>,
  abandonedBeforeMs: number,
): Promise<number> {
  const clientPrefix = client.options?.keyPrefix ?? '';
  const pattern = receiptPattern(keys, clientPrefix, undefined);
  let count = 0;
  for (const node of scanNodesOf(client)) {
    let cursor = '0';
    do {
      const [next, names] = await commands.scan(node, cursor, pattern, SCAN_COUNT);
      cursor = next;
      if (names.length === 0) continue;
      const page = names.map((name) => name.slice(clientPrefix.length));
      const reply = await send(() => countAbandonedScript.run(client, page, [String(abandonedBeforeMs)]));
      const n = Number(reply);
      if (!Number.isSafeInteger(n) || n < 0) throw new Error('redis: the count script answered an unexpected reply');
      count += n;
    } while (cursor !== '0');
  }
  return count;
}
