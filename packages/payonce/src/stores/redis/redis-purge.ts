import type { PurgeCutoffs } from '../../core/store.js';
import { commands } from './redis-commands.js';
import { type RedisKeys, receiptPattern } from './redis-keys.js';
import type { RedisLike, RedisNodeLike } from './redis-like.js';
import type { ScriptArg } from './redis-script.js';
import { purgeBatchScript } from './scripts/purge-batch.js';

/** Keys asked for per SCAN step (a hint to Redis: it looks at about this many slots of its key table). */
const SCAN_COUNT = 1_000;
/** An unfinished purge is continued by the next batch with the same cut-off and scope if it comes within this (ms). */
const CONTINUE_WITHIN_MS = 10_000;

/** Where a purge stands: the server it is scanning, its cursor there, the keys found but not yet looked at. */
interface PurgeWalk {
  node: number;
  cursor: string;
  started: boolean;
  pending: string[];
  lastUsed: number;
}

/**
 * `RedisStore.purgeBatch`: walks the store's receipt hashes with `SCAN MATCH` (every server of a Cluster; one of
 * them holds the store's hash-tag slot) and deletes the finished ones before the cut-off and the abandoned claims with purge-batch.ts, one
 * script per page of keys, which judges each receipt atomically when it deletes it. No index is kept, so completions
 * pay nothing for purge; a purge costs a walk over the server's whole key table (every key of the database, not
 * only the expired receipts) — docs/design.md §3 "Purge".
 *
 * `guard.purge` calls batch after batch with the same cut-off and scope until one deletes fewer than the limit: each
 * batch continues the walk where the previous one stopped (SCAN returns every key that exists for the whole walk),
 * so the whole purge visits each key once. A batch with another cut-off or scope, or one coming later than
 * `CONTINUE_WITHIN_MS`, starts a new walk. Two purges at once with the same arguments do not share a walk: the
 * second starts its own.
 */
export class RedisPurge {
  readonly #walks = new Map<string, PurgeWalk>();

  constructor(
    private readonly client: RedisLike,
    private readonly keys: RedisKeys,
    private readonly send: (run: () => Promise<unknown>) => Promise<unknown>,
  ) {}

  /**
   * Deletes at most `limit` (≥ 1) receipts finished before `cutoffs.beforeMs` or abandoned (held, last heartbeat
   * before `cutoffs.abandonedBeforeMs`), of `provider` if given.
   */
  async batch(cutoffs: PurgeCutoffs, limit: number, provider: string | undefined): Promise<number> {
    const { beforeMs } = cutoffs;
    const id = `${provider === undefined ? '*' : `=${provider}`}\u0000${beforeMs}\u0000${cutoffs.abandonedBeforeMs}`;
    const now = Date.now();
    const found = this.#walks.get(id);
    this.#walks.delete(id);
    for (const [other, left] of this.#walks) if (now - left.lastUsed > CONTINUE_WITHIN_MS) this.#walks.delete(other);
    const walk =
      found !== undefined && now - found.lastUsed <= CONTINUE_WITHIN_MS
        ? found
        : { node: 0, cursor: '0', started: false, pending: [], lastUsed: now };
    const clientPrefix = this.client.options?.keyPrefix ?? '';
    const pattern = receiptPattern(this.keys, clientPrefix, provider);
    const nodes = scanNodesOf(this.client);
    let deleted = 0;
    while (deleted < limit) {
      if (walk.pending.length === 0) {
        if (walk.started && walk.cursor === '0') {
          walk.node += 1;
          walk.started = false;
        }
        const node = nodes[walk.node];
        if (node === undefined) return deleted;
        const [cursor, names] = await commands.scan(node, walk.cursor, pattern, SCAN_COUNT);
        walk.cursor = cursor;
        walk.started = true;
        walk.pending = names.map((name) => name.slice(clientPrefix.length));
        continue;
      }
      const [gone, examined] = await this.deleteFinished(walk.pending, cutoffs, limit - deleted);
      deleted += gone;
      walk.pending = walk.pending.slice(examined);
    }
    walk.lastUsed = Date.now();
    this.#walks.set(id, walk);
    return deleted;
  }

  private async deleteFinished(
    names: readonly string[],
    cutoffs: PurgeCutoffs,
    limit: number,
  ): Promise<[number, number]> {
    const keys = [...names, this.keys.receiptBase, this.keys.legacyFinished, this.keys.legacyFinishedByProviderBase];
    // No abandonment cut-off: one no heartbeat can precede, so no held claim is ever deleted.
    const abandoned = cutoffs.abandonedBeforeMs ?? Number.MIN_SAFE_INTEGER;
    const args: ScriptArg[] = [String(cutoffs.beforeMs), limit, String(abandoned)];
    const reply = await this.send(() => purgeBatchScript.run(this.client, keys, args));
    const [deleted, examined] = Array.isArray(reply) ? reply.map(Number) : [];
    if (!Number.isSafeInteger(deleted) || !Number.isSafeInteger(examined) || (examined ?? 0) < 1) {
      throw new Error('redis: the purge script answered an unexpected reply');
    }
    return [deleted as number, examined as number];
  }
}

/** The servers a walk over a store's receipts scans: every master of a Cluster, else the one connection. */
export function scanNodesOf(client: RedisLike): readonly RedisNodeLike[] {
  if (client.isCluster === true && typeof client.nodes === 'function') return client.nodes('master');
  return [client];
}
