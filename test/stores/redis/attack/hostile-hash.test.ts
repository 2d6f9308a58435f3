import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/payonce/src/core/clock.js';
import { PayonceError } from '../../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { receiptIdOf, redisKeys } from '../../../../packages/payonce/src/stores/redis/redis-keys.js';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../../contract/backends/redis.js';

const T0 = 1_767_225_600_000;

describe('redis attack: hostile keys, values and hand-edited receipt hashes', () => {
  const prefix = `payonce-attack-${randomUUID()}:`;
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

  const key = (label: string, provider = 'hostile*?[]\\:{}ü') =>
    new RequestKey(provider, `${label}:{}*?[]\\=ключ-${randomUUID()}`);
  const hashOf = (k: RequestKey) => names.receiptBase + receiptIdOf(k);

  it('keeps fingerprints with ":" and "=", empty and 1 MiB+ bodies, odd headers byte for byte', async () => {
    const clock = new ManualClock(T0);
    const guard = new IdempotencyGuard(store, { clock });
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      new TextEncoder().encode('1:200:2:{}'),
      new Uint8Array(Buffer.alloc(1_200_000, 0xff)),
      new TextEncoder().encode('ключ 🔑 \u2028'),
    ];
    for (const [i, body] of cases.entries()) {
      const k = key(`body${i}`);
      const fingerprint = `=:${i}:=::-`;
      const headers = { 'x-json': '{"a":[1,"b\\"c"]}', 'x-colon': ':2:{}', 'x-uni': 'ü\u2028' };
      let runs = 0;
      const handler = async () => {
        runs++;
        return { status: 299, headers, body };
      };
      await guard.run(k, handler, { fingerprint });
      const replay = await guard.run(k, handler, { fingerprint });
      expect(runs).toBe(1);
      expect(replay.isReplay).toBe(true);
      expect(replay.response.status).toBe(299);
      expect(replay.response.headers).toEqual(headers);
      expect(Buffer.compare(Buffer.from(replay.response.body), Buffer.from(body))).toBe(0);
      expect(replay.receipt.fingerprint).toBe(fingerprint);
    }
  });

  const malformed: Array<[string, Record<string, string | Buffer>]> = [
    ['attempts 0', { status: '0:p:1:-' }],
    ['no fingerprint part', { status: '1:p:1' }],
    ['state word', { status: '1:pp:1:-' }],
    ['uppercase state', { status: '1:P:1:-' }],
    ['fingerprint without marker', { status: '1:p:1:abc' }],
    ['claimed_at not a number', { status: '1:p:x:-' }],
    ['failed without e', { status: '1:f:1:-' }],
    ['failed with bad e', { status: '1:f:1:-', e: 'oops' }],
    ['d not packed', { status: '1:p:1:-', d: 'garbage' }],
    ['d headers length past the end', { status: '1:p:1:-', d: '5:200:99:{}' }],
    ['d headers not JSON', { status: '1:p:1:-', d: '5:200:3:{x}body' }],
    ['d headers an array', { status: '1:p:1:-', d: '5:200:2:[]body' }],
    ['d header not a string', { status: '1:p:1:-', d: '5:200:7:{"a":1}body' }],
    ['legacy completed without response', { status: 'completed', attempts: '1', claimed_at: '1' }],
    ['legacy bad status', { status: 'done', attempts: '1', claimed_at: '1' }],
  ];
  for (const [label, fields] of malformed) {
    it(`answers a typed error, never a run or a replay, for a hand-edited hash: ${label}`, async () => {
      const k = key(label.replaceAll(' ', '-'));
      await admin.hset(hashOf(k), fields);
      const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0 + 10 ** 9) });
      let runs = 0;
      const error = await guard
        .run(k, async () => {
          runs++;
          return { body: 'ran' };
        })
        .then(
          (outcome) => outcome,
          (thrown: unknown) => thrown,
        );
      expect(runs, label).toBe(0);
      expect(error, label).toBeInstanceOf(PayonceError);
    });
  }

  it('a retry of a failed receipt that carries a stray completion never resurrects it as the stored response', async () => {
    const k = key('stray-d');
    await admin.hset(hashOf(k), { status: '1:f:1:-', e: '5:Error: x', d: '5:200:2:{}stale' });
    const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0) });
    const outcome = await guard.run(k, async () => ({ body: 'fresh' }));
    expect(outcome.isReplay).toBe(false);
    const replay = await guard.run(k, async () => ({ body: 'again' }));
    expect(Buffer.from(replay.response.body).toString()).toBe('fresh');
  });

  it('purge skips a foreign key of another type under the receipt prefix instead of failing every purge', async () => {
    const k = key('done', 'purge-foreign');
    const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0) });
    await guard.run(k, async () => ({ body: 'x' }));
    const foreign = `${names.receiptBase}13:purge-foreign:`;
    await admin.set(`${foreign}not-a-hash`, 'a string');
    await admin.rpush(`${foreign}a-list`, 'x');
    expect(await store.purgeBatch(T0 + 1, 100, 'purge-foreign')).toBe(1);
    expect(await store.find(k)).toBeNull();
    expect(await admin.get(`${foreign}not-a-hash`)).toBe('a string');
    // A purge over every namespace skips them too, and never counts them: a second one finds nothing to purge.
    await store.purgeBatch(T0 + 1, 100);
    expect(await store.purgeBatch(T0 + 1, 100)).toBe(0);
    expect(await admin.get(`${foreign}not-a-hash`)).toBe('a string');
    expect(await admin.lrange(`${foreign}a-list`, 0, -1)).toEqual(['x']);
  });
});
