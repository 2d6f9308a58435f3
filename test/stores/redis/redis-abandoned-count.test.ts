import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredResponse } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { receiptIdOf, redisKeys } from '../../../packages/payonce/src/stores/redis/redis-keys.js';
import type { RedisLike, RedisNodeLike } from '../../../packages/payonce/src/stores/redis/redis-like.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000;
const ok: StoredResponse = { status: 200, headers: {}, body: Uint8Array.of(1) };

describe('RedisStore.countAbandoned (SCAN, no index)', () => {
  let client: Redis;
  let prefix: string;
  let store: RedisStore;

  beforeEach(() => {
    client = redisTestClient();
    prefix = `payonce-abandoned-${randomUUID()}:`;
    store = new RedisStore({ client, prefix });
  });
  afterEach(async () => {
    await deleteKeysWithPrefix(client, prefix);
    await client.quit();
  });

  const claimed = async (label: string, nowMs: number) => {
    const key = new RequestKey('stripe', `${label}-${randomUUID()}`);
    await store.insertClaim({ key, nowMs, fingerprint: null });
    return key;
  };

  it('counts held claims whose last heartbeat is before the cut-off (exclusive): never a finished one', async () => {
    await claimed('old-a', T0 - 5_000);
    const renewed = await claimed('old-renewed', T0 - 5_000);
    await claimed('at-cutoff', T0);
    await claimed('fresh', T0 + 1_000);
    const done = await claimed('done', T0 - 9_000);
    expect(await store.complete({ key: done, attempt: 1, nowMs: T0 - 8_000, response: ok })).toBe(true);
    const failed = await claimed('failed', T0 - 9_000);
    expect(await store.fail({ key: failed, attempt: 1, nowMs: T0 - 8_000, error: 'boom' })).toBe(true);
    // A receipt of the previous layout (one field per column) that is still processing counts too.
    const legacy = new RequestKey('stripe', `legacy-${randomUUID()}`);
    await client.hset(redisKeys(prefix).receiptBase + receiptIdOf(legacy), {
      status: 'processing',
      attempts: '1',
      claimed_at: String(T0 - 5_000),
    });
    // A foreign key under the pattern (another type) is not counted and does not fail the count.
    await client.set(`${redisKeys(prefix).receiptBase}foreign`, 'x');

    expect(await store.countAbandoned(T0)).toBe(3);
    expect(await store.renewClaim({ key: renewed, attempt: 1, nowMs: T0 + 500 })).toBe(true);
    expect(await store.countAbandoned(T0)).toBe(2);
    expect(await store.countAbandoned(T0 + 1)).toBe(3);
    expect(await store.countAbandoned(T0 + 10_000)).toBe(5);
    // The same judgement as the purge: what it counts at a cut-off is what a purge with it deletes.
    expect(await store.purgeBatch(Number.MIN_SAFE_INTEGER, 100, undefined, T0 + 10_000)).toBe(5);
    expect(await store.countAbandoned(T0 + 10_000)).toBe(0);
  });

  it('walks every master of a Cluster: the count comes from the one holding the store slot', async () => {
    for (let i = 0; i < 3; i++) await claimed(`c${i}`, T0 - 1);
    const scanned: string[] = [];
    const empty: RedisNodeLike = {
      callBuffer: async (command) => {
        scanned.push(`empty ${command}`);
        return [Buffer.from('0'), []];
      },
    };
    const holder: RedisNodeLike = {
      callBuffer: (command, ...args) => {
        scanned.push(`holder ${command}`);
        return client.callBuffer(command, ...args);
      },
    };
    const cluster: RedisLike = {
      isCluster: true,
      nodes: () => [empty, holder],
      callBuffer: (command, ...args) => client.callBuffer(command, ...args),
    };
    const clustered = new RedisStore({ client: cluster, prefix, notify: 'off' });
    expect(await clustered.countAbandoned(T0)).toBe(3);
    expect(scanned[0]).toBe('empty SCAN');
    expect(scanned).toContain('holder SCAN');
  });
});
