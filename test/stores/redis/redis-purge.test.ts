import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { IdempotencyGuard } from '../../../src/core/idempotency-guard.js';
import type { StoredResponse } from '../../../src/core/receipt.js';
import { RequestKey } from '../../../src/core/request-key.js';
import { finishedByProviderKey, receiptIdOf, redisKeys } from '../../../src/stores/redis/redis-keys.js';
import { RedisStore } from '../../../src/stores/redis/redis-store.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000;
const ok: StoredResponse = { status: 200, headers: {}, body: Uint8Array.of(1) };

describe('RedisStore purge index', () => {
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

  /** A finished index (default: every provider's; else one provider's) as [receipt id, finished_at] pairs, oldest first. */
  const index = async (provider?: string): Promise<[string, number][]> => {
    const names = redisKeys(prefix);
    const name = provider === undefined ? names.finished : finishedByProviderKey(names, provider);
    const flat = await client.zrange(name, 0, '-1', 'WITHSCORES');
    const pairs: [string, number][] = [];
    for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, Number(flat[i + 1])]);
    return pairs;
  };
  const hashExists = async (key: RequestKey) =>
    (await client.exists(redisKeys(prefix).receiptBase + receiptIdOf(key))) === 1;

  const claimed = async (label: string, nowMs: number, provider = 'purge') => {
    const key = new RequestKey(provider, `${label}-${randomUUID()}`);
    await store.insertClaim({ key, nowMs, fingerprint: null });
    return key;
  };

  it('indexes exactly the finished receipts, by finished_at, through every transition', async () => {
    const processing = await claimed('processing', T0);
    const completed = await claimed('completed', T0);
    const failed = await claimed('failed', T0);
    await store.complete({ key: completed, attempt: 1, nowMs: T0 + 20, response: ok });
    await store.fail({ key: failed, attempt: 1, nowMs: T0 + 10, error: 'boom' });
    expect(await index()).toEqual([
      [receiptIdOf(failed), T0 + 10],
      [receiptIdOf(completed), T0 + 20],
    ]);

    // A retry takes the failed receipt back to processing: it leaves the index.
    await store.takeover({ key: failed, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 30 });
    expect(await index()).toEqual([[receiptIdOf(completed), T0 + 20]]);
    // Failing again re-indexes it at its new finished_at.
    await store.fail({ key: failed, attempt: 2, nowMs: T0 + 40, error: 'again' });
    expect(await index()).toEqual([
      [receiptIdOf(completed), T0 + 20],
      [receiptIdOf(failed), T0 + 40],
    ]);
    // Fenced (lost) finishes change nothing, index included.
    await store.complete({ key: failed, attempt: 1, nowMs: T0 + 50, response: ok });
    await store.fail({ key: processing, attempt: 2, nowMs: T0 + 50, error: 'x' });
    expect(await index()).toHaveLength(2);
    expect((await store.find(processing))?.status).toBe('processing');
    // The provider's own index follows every transition too.
    expect(await index('purge')).toEqual(await index());
  });

  it('keeps one finished index per provider, byte-exact, beside the shared one', async () => {
    const providers = ['stripe', 'Stripe', 'stripe:x', 'провайдер {x}'];
    const keys = [];
    for (const [i, provider] of providers.entries()) {
      const key = await claimed(`p${i}`, T0, provider);
      await store.complete({ key, attempt: 1, nowMs: T0 + i, response: ok });
      keys.push(key);
    }
    expect(await index()).toHaveLength(4);
    for (const [i, provider] of providers.entries()) {
      expect(await index(provider)).toEqual([[receiptIdOf(keys[i]!), T0 + i]]);
    }
    // A retry leaves the provider's index; failing again re-enters it at the new finished_at.
    const retried = keys[1]!;
    const failing = await claimed('f', T0, 'Stripe');
    await store.fail({ key: failing, attempt: 1, nowMs: T0 + 10, error: 'x' });
    expect(await index('Stripe')).toHaveLength(2);
    await store.takeover({ key: failing, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 11 });
    expect(await index('Stripe')).toEqual([[receiptIdOf(retried), T0 + 1]]);
    await store.fail({ key: failing, attempt: 2, nowMs: T0 + 12, error: 'y' });
    expect(await index('Stripe')).toEqual([
      [receiptIdOf(retried), T0 + 1],
      [receiptIdOf(failing), T0 + 12],
    ]);
  });

  it('purges one provider through its own index and removes each deleted receipt from both indexes', async () => {
    const mine: RequestKey[] = [];
    const theirs: RequestKey[] = [];
    for (let i = 0; i < 3; i++) {
      const key = await claimed(`mine${i}`, T0, 'http');
      await store.complete({ key, attempt: 1, nowMs: T0 + 10 + i, response: ok });
      mine.push(key);
      const other = await claimed(`theirs${i}`, T0, 'stripe');
      await store.complete({ key: other, attempt: 1, nowMs: T0 + i, response: ok });
      theirs.push(other);
    }
    const held = await claimed('held', T0 - 1_000, 'http');

    expect(await store.purgeBatch(T0 + 1_000, 2, 'http')).toBe(2);
    expect(await store.purgeBatch(T0 + 1_000, 2, 'http')).toBe(1);
    expect(await store.purgeBatch(T0 + 1_000, 2, 'http')).toBe(0);
    for (const key of mine) expect(await hashExists(key)).toBe(false);
    for (const key of theirs) expect(await hashExists(key)).toBe(true);
    expect((await store.find(held))?.status).toBe('processing');
    expect(await index('http')).toEqual([]);
    // The shared index lost the deleted receipts too, and kept the other provider's in order.
    expect(await index()).toEqual(theirs.map((key, i) => [receiptIdOf(key), T0 + i]));
    expect(await index('stripe')).toEqual(await index());

    // An unscoped purge empties the provider's index as well.
    expect(await store.purgeBatch(T0 + 1, 10)).toBe(1);
    expect(await index('stripe')).toEqual(theirs.slice(1).map((key, i) => [receiptIdOf(key), T0 + 1 + i]));
    expect(await store.purgeBatch(T0 + 1_000, 10)).toBe(2);
    expect(await index()).toEqual([]);
    expect(await index('stripe')).toEqual([]);
  });

  it('drops per-provider entries whose receipt is gone or no longer finished, without counting them', async () => {
    const gone = await claimed('gone', T0, 'http');
    const real = await claimed('real', T0, 'http');
    await store.complete({ key: gone, attempt: 1, nowMs: T0 + 1, response: ok });
    await store.complete({ key: real, attempt: 1, nowMs: T0 + 2, response: ok });
    await client.del(redisKeys(prefix).receiptBase + receiptIdOf(gone));
    expect(await store.purgeBatch(T0 + 10, 1, 'http')).toBe(1);
    expect(await hashExists(real)).toBe(false);
    expect(await index('http')).toEqual([]);
    expect(await index()).toEqual([]);
  });

  it('deletes the oldest finished receipts first, at most limit per batch, never a processing one', async () => {
    const finished: RequestKey[] = [];
    for (let i = 0; i < 5; i++) {
      const key = await claimed(`f${i}`, T0);
      // Finish in reverse order so index order differs from insertion order.
      await store.complete({ key, attempt: 1, nowMs: T0 + 100 - i * 10, response: ok });
      finished.unshift(key);
    }
    const stuck = await claimed('stuck', T0 - 1_000_000);

    expect(await store.purgeBatch(T0 + 1_000, 2)).toBe(2);
    expect(await hashExists(finished[0]!)).toBe(false); // finished at T0 + 60
    expect(await hashExists(finished[1]!)).toBe(false); // T0 + 70
    expect(await hashExists(finished[2]!)).toBe(true);
    // Cut-off is exclusive: finished_at must be before it.
    expect(await store.purgeBatch(T0 + 80, 10)).toBe(0);
    expect(await store.purgeBatch(T0 + 81, 10)).toBe(1);
    expect(await store.purgeBatch(T0 + 1_000, 10)).toBe(2);
    expect(await store.purgeBatch(T0 + 1_000, 10)).toBe(0);
    expect(await index()).toEqual([]);
    expect((await store.find(stuck))?.status).toBe('processing');
    expect(await store.purgeBatch(T0 + 1_000, 0)).toBe(0);
  });

  it('drops index entries whose receipt is gone without counting them, and keeps going', async () => {
    const gone = await claimed('gone', T0);
    const real = await claimed('real', T0);
    await store.complete({ key: gone, attempt: 1, nowMs: T0 + 1, response: ok });
    await store.complete({ key: real, attempt: 1, nowMs: T0 + 2, response: ok });
    await client.del(redisKeys(prefix).receiptBase + receiptIdOf(gone));
    expect(await store.purgeBatch(T0 + 10, 1)).toBe(1);
    expect(await hashExists(real)).toBe(false);
    expect(await index()).toEqual([]);
  });

  it('lets guard.purge empty the store in several batches and return the total', async () => {
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
    expect(await index()).toEqual([[receiptIdOf(webhook), T0 + 1_000]]);
    expect(await index('purge')).toEqual([]);
    expect(await hashExists(held)).toBe(true);
    expect(await guard.find(failing)).toBeNull();
  });
});
