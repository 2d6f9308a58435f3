import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { StoredResponse } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import {
  legacyFinishedByProviderKey,
  receiptIdOf,
  redisKeys,
} from '../../../packages/payonce/src/stores/redis/redis-keys.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000;
const ok = (body: string): StoredResponse => ({
  status: 201,
  headers: { 'x-k': 'v' },
  body: new TextEncoder().encode(body),
});
const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);

describe('RedisStore receipt hash: fencing, waiters, the previous layout', () => {
  const prefix = `payonce-layout-${randomUUID()}:`;
  const names = redisKeys(prefix);
  let admin: Redis;
  let client: Redis;
  let store: RedisStore;

  beforeAll(() => {
    admin = redisTestClient();
    client = redisTestClient();
    store = new RedisStore({ client, prefix });
  });
  afterAll(async () => {
    await store.close();
    await deleteKeysWithPrefix(admin, prefix);
    await Promise.all([admin.quit(), client.quit()]);
  });

  const key = (label: string, provider = 'layout') => new RequestKey(provider, `${label}-${randomUUID()}`);
  const hashOf = (k: RequestKey) => names.receiptBase + receiptIdOf(k);

  describe('fencing', () => {
    it('answers a completion after a takeover false and never shows it; the new claim completes', async () => {
      const k = key('late');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      expect(
        (await store.takeover({ key: k, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 1 }))?.attempts,
      ).toBe(2);
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 2, response: ok('late') })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 2, error: 'late' })).toBe(false);
      expect(await store.find(k)).toMatchObject({ status: 'processing', attempts: 2, response: null });
      expect(await admin.hkeys(hashOf(k))).toEqual(['status']);
      expect(await store.complete({ key: k, attempt: 2, nowMs: T0 + 3, response: ok('winner') })).toBe(true);
      expect(await store.complete({ key: k, attempt: 2, nowMs: T0 + 4, response: ok('twice') })).toBe(false);
      const done = await store.find(k);
      expect(done).toMatchObject({ status: 'completed', attempts: 2, finishedAtMs: T0 + 3 });
      expect(text(done?.response?.body)).toBe('winner');
    });

    it('answers a completion or failure of a purged (missing) receipt false and creates no hash', async () => {
      const k = key('purged');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      await store.takeover({ key: k, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 1 });
      await store.complete({ key: k, attempt: 2, nowMs: T0 + 2, response: ok('winner') });
      expect(await store.purgeBatch(T0 + 3, 10, k.provider)).toBeGreaterThanOrEqual(1);
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 4, response: ok('late') })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 4, error: 'late' })).toBe(false);
      expect(await admin.exists(hashOf(k))).toBe(0);
      // A later delivery is a first claim again.
      expect((await store.insertClaim({ key: k, nowMs: T0 + 5, fingerprint: null })).inserted).toBe(true);
    });

    it('never fails a completed receipt and never completes a failed one', async () => {
      const done = key('done');
      await store.insertClaim({ key: done, nowMs: T0, fingerprint: null });
      await store.complete({ key: done, attempt: 1, nowMs: T0 + 1, response: ok('x') });
      expect(await store.fail({ key: done, attempt: 1, nowMs: T0 + 2, error: 'no' })).toBe(false);
      expect((await store.find(done))?.status).toBe('completed');
      const failed = key('failed');
      await store.insertClaim({ key: failed, nowMs: T0, fingerprint: null });
      await store.fail({ key: failed, attempt: 1, nowMs: T0 + 1, error: 'boom' });
      expect(await store.complete({ key: failed, attempt: 1, nowMs: T0 + 2, response: ok('no') })).toBe(false);
      expect(await store.find(failed)).toMatchObject({ status: 'failed', error: 'boom', finishedAtMs: T0 + 1 });
    });
  });

  describe('waiter flag', () => {
    /** A raw subscriber on the store's channel, collecting the announced receipt ids. */
    const listen = async () => {
      const subscriber = redisTestClient();
      const heard: string[] = [];
      subscriber.on('message', (_channel: string, message: string) => heard.push(message));
      await subscriber.subscribe(names.finishedChannel);
      return { heard, close: () => subscriber.quit() };
    };
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

    it('announces nothing when nobody waits, and the finish of a flagged receipt when someone does', async () => {
      const ears = await listen();
      try {
        const alone = key('alone');
        await store.insertClaim({ key: alone, nowMs: T0, fingerprint: null });
        await store.complete({ key: alone, attempt: 1, nowMs: T0 + 1, response: ok('a') });
        const waited = key('waited');
        await store.insertClaim({ key: waited, nowMs: T0, fingerprint: null });
        const watch = await store.watchReceipt!(waited);
        expect(await admin.hget(hashOf(waited), 'w')).toBe('1');
        await store.complete({ key: waited, attempt: 1, nowMs: T0 + 1, response: ok('w') });
        await watch.changed;
        watch.close();
        const failing = key('failing');
        await store.insertClaim({ key: failing, nowMs: T0, fingerprint: null });
        (await store.watchReceipt!(failing)).close();
        await store.fail({ key: failing, attempt: 1, nowMs: T0 + 1, error: 'x' });
        await settle();
        expect(ears.heard).toEqual([receiptIdOf(waited), receiptIdOf(failing)]);
        expect((await store.find(waited))?.status).toBe('completed');
      } finally {
        await ears.close();
      }
    });

    it('loses no wake-up whichever comes first: a flag set after the completion finds it completed on re-read', async () => {
      const k = key('after');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      await store.complete({ key: k, attempt: 1, nowMs: T0 + 1, response: ok('first') });
      const watch = await store.watchReceipt!(k);
      // Nothing announced any more (the completion came first), but the waiter's re-read sees the finish.
      expect((await store.find(k))?.status).toBe('completed');
      watch.close();
      // And a waiting duplicate through the guard is answered with the replay at once, either way.
      const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0) });
      const outcome = await guard.run(k, () => ({ body: 'never' }), { waitForInFlightMs: 5_000 });
      expect(outcome.isReplay).toBe(true);
    });

    it('sets no flag on a missing receipt (no hash is created by a waiter)', async () => {
      const k = key('nobody');
      const watch = await store.watchReceipt!(k);
      watch.close();
      expect(await admin.exists(hashOf(k))).toBe(0);
    });
  });

  describe('receipts of the previous layout', () => {
    /** A receipt as the previous layout wrote it: one field per column, finished ones in both sorted sets. */
    const legacy = async (k: RequestKey, fields: Record<string, string | Buffer>) => {
      const id = receiptIdOf(k);
      await admin.hset(hashOf(k), { provider: k.provider, external_id: k.externalId, ...fields });
      if (fields.finished_at !== undefined) {
        await admin.zadd(names.legacyFinished, String(fields.finished_at), id);
        await admin.zadd(legacyFinishedByProviderKey(names, k.provider), String(fields.finished_at), id);
      }
    };
    const inIndexes = async (k: RequestKey) => [
      await admin.zscore(names.legacyFinished, receiptIdOf(k)),
      await admin.zscore(legacyFinishedByProviderKey(names, k.provider), receiptIdOf(k)),
    ];
    const oldCompleted = (finishedAt: number) => ({
      status: 'completed',
      attempts: '1',
      claimed_at: String(T0),
      finished_at: String(finishedAt),
      fingerprint: 'fp-old',
      response_status: '202',
      response_headers: '{"content-type":"text/plain"}',
      response_body: Buffer.from([0xff, 0x00, 0x41]),
    });

    it('reads and replays an old completed receipt and never claims over it', async () => {
      const k = key('old-done');
      await legacy(k, oldCompleted(T0 + 5));
      expect(await store.find(k)).toMatchObject({
        status: 'completed',
        attempts: 1,
        claimedAtMs: T0,
        finishedAtMs: T0 + 5,
        fingerprint: 'fp-old',
        response: { status: 202, headers: { 'content-type': 'text/plain' } },
      });
      const claim = await store.insertClaim({ key: k, nowMs: T0 + 10, fingerprint: 'fp-old' });
      expect(claim.inserted).toBe(false);
      expect(Buffer.from(claim.receipt.response?.body ?? [])).toEqual(Buffer.from([0xff, 0x00, 0x41]));
      expect(
        await store.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 11 }),
      ).toBeNull();
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 12, response: ok('no') })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 12, error: 'no' })).toBe(false);
      expect((await store.find(k))?.finishedAtMs).toBe(T0 + 5);
    });

    it('refuses to finish an old processing claim (this store never made it), and takes it over when stale', async () => {
      const k = key('old-held');
      await legacy(k, { status: 'processing', attempts: '1', claimed_at: String(T0) });
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 1, response: ok('no') })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 1, error: 'no' })).toBe(false);
      expect(await store.find(k)).toMatchObject({ status: 'processing', attempts: 1, fingerprint: null });
      const taken = await store.takeover({ key: k, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 2 });
      expect(taken).toMatchObject({ status: 'processing', attempts: 2, claimedAtMs: T0 + 2, fingerprint: null });
      // Moved to this layout: only the claim field is left, in the new format.
      expect(await admin.hgetall(hashOf(k))).toEqual({ status: `2:p:${T0 + 2}:-` });
      expect(await store.complete({ key: k, attempt: 2, nowMs: T0 + 3, response: ok('new') })).toBe(true);
      expect(text((await store.find(k))?.response?.body)).toBe('new');
    });

    it('retries an old failed receipt in this layout, keeping its fingerprint and leaving the old indexes', async () => {
      const k = key('old-failed');
      await legacy(k, {
        status: 'failed',
        attempts: '2',
        claimed_at: String(T0),
        finished_at: String(T0 + 1),
        fingerprint: 'fp:with:colons',
        error: 'old boom',
      });
      expect(await store.find(k)).toMatchObject({ status: 'failed', attempts: 2, error: 'old boom' });
      expect(await inIndexes(k)).toEqual([String(T0 + 1), String(T0 + 1)]);
      const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0 + 10) });
      const outcome = await guard.run(k, (claim) => ({ body: `retry ${claim.attempt}` }), {
        fingerprint: 'fp:with:colons',
      });
      expect(outcome.isReplay).toBe(false);
      expect(text(outcome.response.body)).toBe('retry 3');
      expect(await store.find(k)).toMatchObject({ status: 'completed', attempts: 3, fingerprint: 'fp:with:colons' });
      expect(await inIndexes(k)).toEqual([null, null]);
      expect((await admin.hkeys(hashOf(k))).sort()).toEqual(['d', 'status']);
    });

    it('purges old finished receipts (scoped or not) and takes them out of the old indexes; never an old processing one', async () => {
      const provider = `old-${randomUUID()}`;
      const done = key('old-purge-done', provider);
      const failed = key('old-purge-failed', provider);
      const held = key('old-purge-held', provider);
      const recent = key('old-purge-recent', provider);
      const elsewhere = key('old-purge-elsewhere', `other-${randomUUID()}`);
      await legacy(done, oldCompleted(T0 + 1));
      await legacy(failed, {
        status: 'failed',
        attempts: '1',
        claimed_at: String(T0),
        finished_at: String(T0 + 2),
        error: 'x',
      });
      await legacy(held, { status: 'processing', attempts: '1', claimed_at: String(T0 - 1_000) });
      await legacy(recent, oldCompleted(T0 + 10_000));
      await legacy(elsewhere, oldCompleted(T0 + 1));
      const mixed = key('new-purge-done', provider);
      await store.insertClaim({ key: mixed, nowMs: T0, fingerprint: null });
      await store.complete({ key: mixed, attempt: 1, nowMs: T0 + 3, response: ok('new') });

      expect(await store.purgeBatch(T0 + 100, 10, provider)).toBe(3);
      for (const k of [done, failed, mixed]) expect(await admin.exists(hashOf(k))).toBe(0);
      expect(await inIndexes(done)).toEqual([null, null]);
      expect(await inIndexes(failed)).toEqual([null, null]);
      expect((await store.find(held))?.status).toBe('processing');
      expect((await store.find(recent))?.status).toBe('completed');
      expect((await store.find(elsewhere))?.status).toBe('completed');
      // Unscoped (this file's other finished receipts go too).
      expect(await store.purgeBatch(T0 + 100, 1_000)).toBeGreaterThanOrEqual(1);
      expect(await admin.exists(hashOf(elsewhere))).toBe(0);
      expect(await inIndexes(elsewhere)).toEqual([null, null]);
      expect((await store.find(held))?.status).toBe('processing');
    });
  });
});
