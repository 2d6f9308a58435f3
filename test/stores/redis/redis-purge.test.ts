import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { StoredResponse } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import {
  escapeGlob,
  receiptIdOf,
  receiptPattern,
  redisKeys,
} from '../../../packages/payonce/src/stores/redis/redis-keys.js';
import type { RedisLike } from '../../../packages/payonce/src/stores/redis/redis-like.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000;
const ok: StoredResponse = { status: 200, headers: {}, body: Uint8Array.of(1) };

describe('RedisStore purge (SCAN, no index)', () => {
  let client: Redis;
  let prefix: string;
  let store: RedisStore;

  beforeEach(() => {
    client = redisTestClient();
    prefix = `payonce-purge-${randomUUID()}:`;
    store = new RedisStore({ client, prefix });
  });
  afterEach(async () => {
    await deleteKeysWithPrefix(client, prefix);
    await client.quit();
  });

  const hashExists = async (key: RequestKey) =>
    (await client.exists(redisKeys(prefix).receiptBase + receiptIdOf(key))) === 1;
  const claimed = async (label: string, nowMs: number, provider = 'purge') => {
    const key = new RequestKey(provider, `${label}-${randomUUID()}`);
    await store.insertClaim({ key, nowMs, fingerprint: null });
    return key;
  };
  const completed = async (label: string, finishedAt: number, provider = 'purge') => {
    const key = await claimed(label, T0, provider);
    expect(await store.complete({ key, attempt: 1, nowMs: finishedAt, response: ok })).toBe(true);
    return key;
  };

  it('deletes finished receipts before the cut-off (exclusive), at most limit per batch, never a processing one', async () => {
    const finished: RequestKey[] = [];
    for (let i = 0; i < 5; i++) finished.push(await completed(`f${i}`, T0 + 60 + i * 10));
    const failed = await claimed('failed', T0);
    await store.fail({ key: failed, attempt: 1, nowMs: T0 + 50, error: 'boom' });
    const stuck = await claimed('stuck', T0 - 1_000_000);

    // Cut-off exclusive: finished_at must be before it; the cut-off is whatever the caller passes now.
    expect(await store.purgeBatch(T0 + 50, 10)).toBe(0);
    expect(await store.purgeBatch(T0 + 51, 10)).toBe(1);
    expect(await hashExists(failed)).toBe(false);
    expect(await store.purgeBatch(T0 + 81, 10)).toBe(3);
    for (const key of finished.slice(0, 3)) expect(await hashExists(key)).toBe(false);
    expect(await hashExists(finished[3]!)).toBe(true);
    expect(await store.purgeBatch(T0 + 1_000, 1)).toBe(1);
    expect(await store.purgeBatch(T0 + 1_000, 1)).toBe(1);
    expect(await store.purgeBatch(T0 + 1_000, 1)).toBe(0);
    expect((await store.find(stuck))?.status).toBe('processing');
    expect(await store.purgeBatch(T0 + 1_000, 0)).toBe(0);
    // No index exists, before or after: the receipts are the only keys.
    const names = redisKeys(prefix);
    expect(await client.exists(names.legacyFinished)).toBe(0);
  });

  it('scopes a purge to one provider byte for byte, glob characters included', async () => {
    const providers = ['a*', 'a', 'ab', 'a?', '[ab]', 'b', 'a\\', 'a\\*', 'a:b', 'A*', 'a*b'];
    const keys = new Map<string, RequestKey>();
    for (const provider of providers) keys.set(provider, await completed(provider, T0 + 1, provider));
    for (const target of ['a*', '[ab]', 'a?', 'a\\', 'a']) {
      expect(await store.purgeBatch(T0 + 10, 100, target)).toBe(1);
      expect(await hashExists(keys.get(target)!)).toBe(false);
      keys.delete(target);
      for (const left of keys.values()) expect(await hashExists(left)).toBe(true);
    }
    expect(await store.purgeBatch(T0 + 10, 100, 'nobody')).toBe(0);
    expect(await store.purgeBatch(T0 + 10, 100)).toBe(keys.size);
  });

  it('escapes every SCAN glob character, and builds the scoped pattern from the byte length', () => {
    expect(escapeGlob('a*b?c[d]e\\f')).toBe('a\\*b\\?c\\[d\\]e\\\\f');
    const names = redisKeys('p*:');
    expect(receiptPattern(names, 'c?', 'é*')).toBe('c\\?p\\*:{receipts}:r:3:é\\*:*');
    expect(receiptPattern(names, '', undefined)).toBe('p\\*:{receipts}:r:*');
  });

  it('walks the key space once per purge: each batch continues the SCAN of the one before', async () => {
    const scans: string[] = [];
    const spy: RedisLike = {
      callBuffer: (command, ...args) => {
        if (command === 'SCAN') scans.push(String(args[0]));
        return client.callBuffer(command, ...args);
      },
    };
    const counted = new RedisStore({ client: spy, prefix });
    for (let i = 0; i < 30; i++) await completed(`w${i}`, T0 + 1);
    const guard = new IdempotencyGuard(counted, { clock: new ManualClock(T0 + 1_000), purgeBatchSize: 4 });
    expect(await guard.purge({ olderThan: 500 })).toBe(30);
    // One walk: the first SCAN starts at cursor 0 and no later one does (the walk ends when a cursor comes back 0).
    expect(scans[0]).toBe('0');
    expect(scans.slice(1).filter((cursor) => cursor === '0')).toEqual([]);
    expect(await guard.purge({ olderThan: 500 })).toBe(0);
  });

  it('lets guard.purge empty one provider in several batches and return the total', async () => {
    const clock = new ManualClock(T0);
    const guard = new IdempotencyGuard(store, { clock, purgeBatchSize: 3 });
    for (let i = 0; i < 7; i++) await guard.run(new RequestKey('purge', `g${i}-${randomUUID()}`), () => ({}));
    const failing = new RequestKey('purge', `g-fail-${randomUUID()}`);
    await expect(
      guard.run(failing, () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const held = await claimed('held', T0);
    clock.advance(1_000);
    const webhook = new RequestKey('stripe', `evt-${randomUUID()}`);
    await guard.run(webhook, () => ({}));
    expect(await guard.purge({ olderThan: 0, provider: 'purge' })).toBe(8);
    expect(await guard.find(webhook)).not.toBeNull();
    expect(await guard.purge({ olderThan: 500 })).toBe(0);
    expect(await hashExists(held)).toBe(true);
    expect(await guard.find(failing)).toBeNull();
    clock.advance(1);
    expect(await guard.purge({ olderThan: 0 })).toBe(1);
    expect(await guard.find(webhook)).toBeNull();
  });

  it('judges each receipt when it deletes it: receipts finished after the SCAN found them count by their own time', async () => {
    const early = await claimed('early', T0);
    const late = await claimed('late', T0);
    let finishedInBetween = false;
    const spy: RedisLike = {
      callBuffer: async (command, ...args) => {
        const reply = await client.callBuffer(command, ...args);
        if (command === 'SCAN' && !finishedInBetween) {
          // The walk has found both while they were processing; they finish before the purge script runs.
          finishedInBetween = true;
          await store.complete({ key: early, attempt: 1, nowMs: T0 + 1, response: ok });
          await store.complete({ key: late, attempt: 1, nowMs: T0 + 5_000, response: ok });
        }
        return reply;
      },
    };
    expect(await new RedisStore({ client: spy, prefix }).purgeBatch(T0 + 10, 10)).toBe(1);
    expect(finishedInBetween).toBe(true);
    expect(await hashExists(early)).toBe(false);
    expect(await hashExists(late)).toBe(true);
  });
});
