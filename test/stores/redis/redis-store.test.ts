import { randomBytes, randomUUID } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { InvalidOption, RequestInProgress } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { StoredResponse } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { AdaptivePipelining } from '../../../packages/payonce/src/stores/redis/adaptive-pipelining.js';
import { receiptIdOf, redisKeys } from '../../../packages/payonce/src/stores/redis/redis-keys.js';
import type { RedisLike } from '../../../packages/payonce/src/stores/redis/redis-like.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import type { TestBackend } from '../../contract/backend.js';
import { deleteKeysWithPrefix, redisBackend, redisTestClient, redisTestUrl } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

const response = (body: Uint8Array, status = 200): StoredResponse => ({
  status,
  headers: { 'content-type': 'application/octet-stream', 'x-note': 'ключ: {значение}' },
  body,
});

describe('RedisStore', () => {
  let backend: TestBackend;
  let store: RedisStore;
  let other: RedisStore;
  let admin: Redis;

  beforeAll(async () => {
    backend = await redisBackend();
    store = (await backend.open()) as RedisStore;
    other = (await backend.open()) as RedisStore;
    admin = redisTestClient();
  });
  afterAll(async () => {
    await admin?.quit();
    await backend?.cleanup();
  });

  const key = (label: string, provider = 'redis-test') => new RequestKey(provider, `${label}-${randomUUID()}`);

  describe('binary bodies', () => {
    it('round-trips a 5 MB body of random (non-UTF-8) bytes byte for byte, across connections', async () => {
      const body = new Uint8Array(randomBytes(5 * 1024 * 1024));
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(body)).toThrow();
      const k = key('5mb');
      const clock = new ManualClock(T0);
      const first = new IdempotencyGuard(store, { clock });
      const second = new IdempotencyGuard(other, { clock });
      let runs = 0;
      const handler = async () => {
        runs++;
        return { status: 201, headers: { etag: '"x"' }, body };
      };
      const original = await first.run(k, handler);
      const replay = await second.run(k, handler);
      expect(runs).toBe(1);
      expect(original.isReplay).toBe(false);
      expect(replay.isReplay).toBe(true);
      expect(replay.response.status).toBe(201);
      expect(replay.response.headers).toEqual({ etag: '"x"' });
      expect(replay.response.body.byteLength).toBe(body.byteLength);
      expect(Buffer.compare(Buffer.from(replay.response.body), Buffer.from(body))).toBe(0);
    });

    it('keeps invalid UTF-8, NUL and lone continuation bytes exactly, as a plain Uint8Array of its own', async () => {
      const body = Uint8Array.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0xed, 0xa0, 0x80, 0x0d, 0x0a, 0x00]);
      const k = key('bytes');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 5, response: response(body, 202) })).toBe(true);
      body[0] = 0x00; // the caller's buffer changing later must not change what is stored
      const found = await other.find(k);
      expect(found?.response?.body).toEqual(
        Uint8Array.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0xed, 0xa0, 0x80, 0x0d, 0x0a, 0x00]),
      );
      expect(Object.getPrototypeOf(found?.response?.body)).toBe(Uint8Array.prototype);
      expect(found?.response?.body.byteOffset).toBe(0);
      expect(found?.response?.headers).toEqual({
        'content-type': 'application/octet-stream',
        'x-note': 'ключ: {значение}',
      });
      expect(found?.response?.status).toBe(202);
      expect(found?.finishedAtMs).toBe(T0 + 5);
    });

    it('stores an empty body as an empty body', async () => {
      const k = key('empty');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      await store.complete({ key: k, attempt: 1, nowMs: T0, response: response(new Uint8Array(0), 204) });
      const found = await store.find(k);
      expect(found?.response?.body).toEqual(new Uint8Array(0));
      expect(found?.response?.status).toBe(204);
    });

    it('stores an ASCII body (sent as text) and a body with one byte above 0x7f (sent as bytes) exactly', async () => {
      const ascii = Uint8Array.from(Buffer.from('{"received":true,"ctl":"\u0000\t\x7f"}', 'latin1'));
      const high = Uint8Array.of(0x7b, 0x80, 0x7d);
      // Up to 256 bytes an ASCII body is read into text straight from its bytes; longer ones through a Buffer.
      const at256 = Uint8Array.from(Buffer.from(`${'x'.repeat(255)}\x7f`, 'latin1'));
      const over256 = Uint8Array.from(Buffer.from('y'.repeat(257), 'latin1'));
      const highAt256 = Uint8Array.from([...'z'.repeat(255)].map((c) => c.charCodeAt(0)).concat(0xc3));
      for (const body of [ascii, high, at256, over256, highAt256]) {
        const k = key('ascii');
        await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
        // A view into a larger buffer: only its own bytes are sent.
        const view = new Uint8Array([0xff, ...body, 0xff]).subarray(1, body.length + 1);
        await store.complete({ key: k, attempt: 1, nowMs: T0, response: response(view) });
        expect((await store.find(k))?.response?.body).toEqual(body);
        // The completion field ends with the body's own bytes (receipt-fields.ts).
        const raw = await admin.hgetBuffer(redisKeys(store.prefix).receiptBase + receiptIdOf(k), 'd');
        expect(raw?.subarray(raw.length - body.length)).toEqual(Buffer.from(body));
      }
    });
  });

  describe('key encoding', () => {
    it('never lets a ":" move between provider and external id', async () => {
      const suffix = randomUUID();
      const left = new RequestKey('a:b', `c-${suffix}`);
      const right = new RequestKey('a', `b:c-${suffix}`);
      expect(receiptIdOf(left)).not.toBe(receiptIdOf(right));
      expect((await store.insertClaim({ key: left, nowMs: T0, fingerprint: 'left' })).inserted).toBe(true);
      const second = await store.insertClaim({ key: right, nowMs: T0, fingerprint: 'right' });
      expect(second.inserted).toBe(true);
      expect((await store.find(left))?.fingerprint).toBe('left');
      expect((await store.find(right))?.fingerprint).toBe('right');
    });

    it('compares keys byte for byte: evt_A and evt_a are different receipts', async () => {
      const suffix = randomUUID();
      const upper = new RequestKey('stripe', `evt_A-${suffix}`);
      const lower = new RequestKey('stripe', `evt_a-${suffix}`);
      expect((await store.insertClaim({ key: upper, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      expect((await store.insertClaim({ key: lower, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      // NFC "é" and NFD "e + ◌́" look alike but are different bytes, so different keys.
      const nfc = new RequestKey('stripe', `caf\u00e9-${suffix}`);
      const nfd = new RequestKey('stripe', `cafe\u0301-${suffix}`);
      expect((await store.insertClaim({ key: nfc, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      expect((await store.insertClaim({ key: nfd, nowMs: T0, fingerprint: null })).inserted).toBe(true);
    });

    it('writes every key of the store under one hash tag, whatever the key parts contain', async () => {
      const prefix = `payonce-tag-${randomUUID()}:`;
      const tagged = new RequestKey('провайдер {x}', '😀 id:{y}:}{');
      const client = redisTestClient();
      try {
        const s = new RedisStore({ client, prefix });
        await s.insertClaim({ key: tagged, nowMs: T0, fingerprint: null });
        await s.complete({ key: tagged, attempt: 1, nowMs: T0 + 1, response: response(Uint8Array.of(1)) });
        expect((await s.find(tagged))?.key.equals(tagged)).toBe(true);
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 10_000);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
        const names = redisKeys(prefix);
        // One hash per receipt and nothing else: no index is kept.
        expect(keys).toEqual([names.receiptBase + receiptIdOf(tagged)]);
        for (const name of keys) {
          // Redis Cluster hashes the text between the first "{" and the next "}".
          const open = name.indexOf('{');
          expect(name.slice(open, name.indexOf('}', open) + 1)).toBe('{receipts}');
          expect(open).toBe(prefix.length);
        }
        expect((await s.find(tagged))?.key.externalId).toBe('😀 id:{y}:}{');
        expect(await s.purgeBatch(T0 + 2, 10, tagged.provider)).toBe(1);
      } finally {
        await deleteKeysWithPrefix(client, prefix);
        await client.quit();
      }
    });

    it('keeps stores with different prefixes apart', async () => {
      const k = key('isolated');
      const client = redisTestClient();
      const prefix = `payonce-iso-${randomUUID()}:`;
      try {
        const elsewhere = new RedisStore({ client, prefix });
        await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
        expect(await elsewhere.find(k)).toBeNull();
        expect((await elsewhere.insertClaim({ key: k, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      } finally {
        await deleteKeysWithPrefix(client, prefix);
        await client.quit();
      }
    });
  });

  describe('atomic steps', () => {
    it('lets exactly one of 50 parallel insertClaims from two connections insert', async () => {
      const k = key('race');
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? store : other).insertClaim({ key: k, nowMs: T0 + i, fingerprint: `fp-${i}` }),
        ),
      );
      const winners = results.filter((r) => r.inserted);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.receipt;
      for (const loser of results.filter((r) => !r.inserted)) {
        expect(loser.receipt).toEqual(winner);
      }
      expect(await store.find(k)).toEqual(winner);
      expect(winner).toMatchObject({ status: 'processing', attempts: 1, finishedAtMs: null, response: null });
    });

    it('lets exactly one of 20 parallel takeovers with the same expectation win', async () => {
      const k = key('takeover-race');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? store : other).takeover({
            key: k,
            expectedStatus: 'processing',
            expectedAttempts: 1,
            nowMs: T0 + 1_000,
          }),
        ),
      );
      const taken = results.filter((r) => r !== null);
      expect(taken).toHaveLength(1);
      expect(taken[0]).toMatchObject({ status: 'processing', attempts: 2, claimedAtMs: T0 + 1_000 });
    });

    it('fences complete and fail by attempt and never changes a completed receipt', async () => {
      const k = key('fence');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: 'fp' });
      const taken = await other.takeover({ key: k, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 10 });
      expect(taken?.attempts).toBe(2);
      const late = response(Uint8Array.of(1, 2, 3));
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0 + 20, response: late })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 20, error: 'late' })).toBe(false);
      const win = response(Uint8Array.of(9), 201);
      expect(await other.complete({ key: k, attempt: 2, nowMs: T0 + 30, response: win })).toBe(true);
      const done = await store.find(k);
      expect(done).toMatchObject({ status: 'completed', attempts: 2, finishedAtMs: T0 + 30, fingerprint: 'fp' });
      expect(done?.response?.body).toEqual(Uint8Array.of(9));
      expect(await store.complete({ key: k, attempt: 2, nowMs: T0 + 40, response: late })).toBe(false);
      expect(await store.fail({ key: k, attempt: 2, nowMs: T0 + 40, error: 'x' })).toBe(false);
      for (const expectedStatus of ['processing', 'failed'] as const) {
        expect(await store.takeover({ key: k, expectedStatus, expectedAttempts: 2, nowMs: T0 + 50 })).toBeNull();
      }
      expect(await store.find(k)).toEqual(done);
    });

    it('stores the error of a failed claim and clears it on retry', async () => {
      const k = key('fail');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 1, error: 'Error: boom ✗' })).toBe(true);
      expect(await other.find(k)).toMatchObject({ status: 'failed', error: 'Error: boom ✗', finishedAtMs: T0 + 1 });
      expect(await store.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 2, nowMs: T0 + 2 })).toBeNull();
      const retried = await store.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 2 });
      expect(retried).toMatchObject({ status: 'processing', attempts: 2, claimedAtMs: T0 + 2, finishedAtMs: null });
      expect(retried?.error).toBeNull();
    });

    it('keeps exactly the fields of each state in the hash through claim, fail, retry, complete, fail', async () => {
      const keys = redisKeys(store.prefix);
      const fieldsOf = async (k: RequestKey) => (await admin.hkeys(keys.receiptBase + receiptIdOf(k))).sort();
      const claimed = ['status'];
      const k = key('fields');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
      expect(await fieldsOf(k)).toEqual(claimed);
      expect(await admin.hget(keys.receiptBase + receiptIdOf(k), 'status')).toBe(`1:p:${T0}:-`);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0 + 1, error: 'boom' })).toBe(true);
      expect(await fieldsOf(k)).toEqual(['e', 'status']);
      expect(await admin.hmget(keys.receiptBase + receiptIdOf(k), 'status', 'e')).toEqual([
        `1:f:${T0}:-`,
        `${T0 + 1}:boom`,
      ]);
      await store.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 2 });
      expect(await fieldsOf(k)).toEqual(claimed);
      expect(await store.complete({ key: k, attempt: 2, nowMs: T0 + 3, response: response(Uint8Array.of(1)) })).toBe(
        true,
      );
      expect(await fieldsOf(k)).toEqual(['d', 'status']);
      expect(await store.find(k)).toMatchObject({ status: 'completed', error: null, fingerprint: null });

      const stale = key('fields-stale');
      await store.insertClaim({ key: stale, nowMs: T0, fingerprint: 'fp' });
      await store.takeover({ key: stale, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 1 });
      expect(await store.fail({ key: stale, attempt: 2, nowMs: T0 + 2, error: 'x' })).toBe(true);
      expect(await fieldsOf(stale)).toEqual(['e', 'status']);
      expect(await admin.hget(keys.receiptBase + receiptIdOf(stale), 'status')).toBe(`2:f:${T0 + 1}:=fp`);
    });

    it('tells an empty fingerprint from none', async () => {
      const empty = key('fp-empty');
      const none = key('fp-none');
      expect((await store.insertClaim({ key: empty, nowMs: T0, fingerprint: '' })).receipt.fingerprint).toBe('');
      expect((await store.insertClaim({ key: none, nowMs: T0, fingerprint: null })).receipt.fingerprint).toBeNull();
      expect((await other.find(empty))?.fingerprint).toBe('');
      expect((await other.find(none))?.fingerprint).toBeNull();
      expect((await other.insertClaim({ key: empty, nowMs: T0 + 1, fingerprint: 'x' })).receipt.fingerprint).toBe('');
    });

    it('fences a completion by the exact attempt across digit counts (9 → 10 → 11), and refuses a claim it cannot read', async () => {
      const keys = redisKeys(store.prefix);
      const k = key('attempt-digits');
      await store.insertClaim({ key: k, nowMs: T0, fingerprint: 'fp' });
      for (let attempts = 1; attempts < 11; attempts++) {
        const taken = await store.takeover({
          key: k,
          expectedStatus: 'processing',
          expectedAttempts: attempts,
          nowMs: T0,
        });
        expect(taken?.attempts).toBe(attempts + 1);
      }
      const body = response(Uint8Array.of(7));
      for (const stale of [1, 10, 110, 12]) {
        expect(await store.complete({ key: k, attempt: stale, nowMs: T0 + 1, response: body })).toBe(false);
      }
      expect(await store.complete({ key: k, attempt: 11, nowMs: T0 + 1, response: body })).toBe(true);
      expect(await store.find(k)).toMatchObject({ status: 'completed', attempts: 11, fingerprint: 'fp' });

      // Hand-edited claims: attempts with a leading zero, no claimed_at digits. Neither is completed.
      for (const claim of [`01:p:${T0}:-`, '1:p::-', '1:p']) {
        const odd = key('attempt-odd');
        await admin.hset(keys.receiptBase + receiptIdOf(odd), 'status', claim);
        expect(await store.complete({ key: odd, attempt: 1, nowMs: T0 + 1, response: body })).toBe(false);
        expect(await admin.hexists(keys.receiptBase + receiptIdOf(odd), 'd')).toBe(0);
      }
    });

    it('returns null for an unknown key and takes over nothing', async () => {
      const k = key('unknown');
      expect(await store.find(k)).toBeNull();
      expect(await store.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 })).toBeNull();
      expect(await store.complete({ key: k, attempt: 1, nowMs: T0, response: response(Uint8Array.of()) })).toBe(false);
      expect(await store.fail({ key: k, attempt: 1, nowMs: T0, error: 'x' })).toBe(false);
      expect(await store.find(k)).toBeNull();
    });
  });

  describe.each<[string, RedisOptions]>([
    ['RESP2', { protocol: 2 }],
    ['RESP3', { protocol: 3 }],
    ['RESP3 with resp3 reply mapping', { protocol: 3, replyMapping: 'resp3' }],
    ['stringNumbers', { stringNumbers: true }],
  ])('on an ioredis client with %s', (_label, clientOptions) => {
    it('runs the whole receipt lifecycle', async () => {
      const prefix = `payonce-opts-${randomUUID()}:`;
      const client = new Redis(redisTestUrl(), { ...clientOptions, maxRetriesPerRequest: 3 });
      try {
        const s = new RedisStore({ client, prefix });
        const k = key('lifecycle');
        const body = Uint8Array.from([0x80, 0xff, 0x00, 0x41]);
        expect((await s.insertClaim({ key: k, nowMs: T0, fingerprint: 'fp' })).inserted).toBe(true);
        const again = await s.insertClaim({ key: k, nowMs: T0 + 1, fingerprint: 'other' });
        expect(again).toMatchObject({
          inserted: false,
          receipt: { status: 'processing', attempts: 1, claimedAtMs: T0 },
        });
        expect(await s.fail({ key: k, attempt: 1, nowMs: T0 + 2, error: 'e' })).toBe(true);
        const retry = await s.takeover({ key: k, expectedStatus: 'failed', expectedAttempts: 1, nowMs: T0 + 3 });
        expect(retry).toMatchObject({ status: 'processing', attempts: 2, fingerprint: 'fp' });
        expect(await s.complete({ key: k, attempt: 1, nowMs: T0 + 4, response: response(body) })).toBe(false);
        expect(await s.complete({ key: k, attempt: 2, nowMs: T0 + 4, response: response(body) })).toBe(true);
        const found = await s.find(k);
        expect(found).toMatchObject({ status: 'completed', attempts: 2, finishedAtMs: T0 + 4, error: null });
        expect(found?.response?.body).toEqual(body);
        expect(await s.purgeBatch(T0 + 5, 10)).toBe(1);
        expect(await s.find(k)).toBeNull();
      } finally {
        await deleteKeysWithPrefix(admin, prefix);
        await client.quit();
      }
    });
  });

  describe('options and connections', () => {
    it('rejects a prefix with a brace and a client without callBuffer', () => {
      const client = { callBuffer: async () => null } satisfies RedisLike;
      expect(() => new RedisStore({ client, prefix: 'a{b}:' })).toThrow(InvalidOption);
      expect(() => new RedisStore({ client, prefix: 'a}' })).toThrow(InvalidOption);
      expect(() => new RedisStore({ client: {} as RedisLike })).toThrow(InvalidOption);
      expect(new RedisStore({ client }).prefix).toBe('payonce:');
    });

    it("takes pipelining true, false, 'auto' or an AdaptivePipelining, and nothing else", () => {
      const client = { callBuffer: async () => null } satisfies RedisLike;
      for (const pipelining of [true, false, 'auto', new AdaptivePipelining()] as const) {
        expect(new RedisStore({ client, pipelining }).pipeliningProbe).toBeNull();
      }
      // An object with the class's prototype but none of its state would fail on the first command: refused now.
      const lookalike = Object.create(AdaptivePipelining.prototype) as AdaptivePipelining;
      for (const pipelining of ['on', 1, {}, 'AUTO', lookalike]) {
        expect(() => new RedisStore({ client, pipelining: pipelining as never })).toThrow(
          /invalid option pipelining: must be true, false, 'auto' or an AdaptivePipelining/,
        );
      }
    });

    it('accepts an ioredis Cluster as its client', () => {
      const cluster = new Cluster([{ host: '127.0.0.1', port: 6379 }], { lazyConnect: true });
      try {
        expect(new RedisStore({ client: cluster, prefix: 'c:' }).name).toBe('redis');
      } finally {
        cluster.disconnect();
      }
    });

    it('connect() owns its connection and close() quits it; a caller’s client is left open', async () => {
      const prefix = `payonce-own-${randomUUID()}:`;
      const owned = await RedisStore.connect(redisTestUrl(), { prefix });
      const k = key('owned');
      expect((await owned.insertClaim({ key: k, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      await owned.close();
      await owned.close();
      await expect(owned.find(k)).rejects.toThrow();

      const client = redisTestClient();
      const borrowed = new RedisStore({ client, prefix });
      await borrowed.close();
      expect((await borrowed.find(k))?.status).toBe('processing');
      await deleteKeysWithPrefix(client, prefix);
      await client.quit();
    });

    it('works through a client keyPrefix, purge included', async () => {
      const clientPrefix = `payonce-kp-${randomUUID()}:`;
      const client = new Redis(redisTestUrl(), { keyPrefix: clientPrefix });
      try {
        const s = new RedisStore({ client, prefix: 'inner:' });
        const k = key('kp');
        await s.insertClaim({ key: k, nowMs: T0, fingerprint: null });
        await s.complete({ key: k, attempt: 1, nowMs: T0, response: response(Uint8Array.of(7)) });
        expect(await admin.exists(`${clientPrefix}inner:{receipts}:r:${receiptIdOf(k)}`)).toBe(1);
        expect(await s.purgeBatch(T0 + 1, 10)).toBe(1);
        expect(await s.find(k)).toBeNull();
        expect(await admin.exists(`${clientPrefix}inner:{receipts}:finished`)).toBe(0);
        expect(await admin.exists(`${clientPrefix}inner:{receipts}:finished:${k.provider}`)).toBe(0);
        // A scoped purge goes through the client keyPrefix too.
        const scoped = key('kp-scoped');
        await s.insertClaim({ key: scoped, nowMs: T0, fingerprint: null });
        await s.complete({ key: scoped, attempt: 1, nowMs: T0, response: response(Uint8Array.of(8)) });
        expect(await s.purgeBatch(T0 + 1, 10, `${scoped.provider}-other`)).toBe(0);
        expect(await s.purgeBatch(T0 + 1, 10, scoped.provider)).toBe(1);
        expect(await s.find(scoped)).toBeNull();
        expect(await admin.exists(`${clientPrefix}inner:{receipts}:finished`)).toBe(0);
        expect(await admin.exists(`${clientPrefix}inner:{receipts}:finished:${scoped.provider}`)).toBe(0);
      } finally {
        await deleteKeysWithPrefix(admin, clientPrefix);
        await client.quit();
      }
    });

    it.each(['publish', 'spublish'] as const)(
      'announces a finish to a waiting duplicate through a client keyPrefix (notify %s)',
      async (notify) => {
        // ioredis prefixes a sharded channel (SSUBSCRIBE) like a key but not a plain one; the script's SPUBLISH gets
        // no prefix from the client, so it must publish the name the subscriber hears.
        const clientPrefix = `payonce-kp-notify-${randomUUID()}:`;
        const client = new Redis(redisTestUrl(), { keyPrefix: clientPrefix });
        const s = new RedisStore({ client, prefix: 'inner:', notify });
        try {
          const k = key('kp-notify');
          await s.insertClaim({ key: k, nowMs: T0, fingerprint: null });
          const watch = await s.watchReceipt!(k);
          await s.complete({ key: k, attempt: 1, nowMs: T0 + 1, response: response(Uint8Array.of(9)) });
          // Without the announcement `changed` never settles (a waiter would only find the finish by polling).
          let timer: NodeJS.Timeout | undefined;
          const silent = new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve('not announced within 5 s'), 5_000);
          });
          expect(await Promise.race([watch.changed.then(() => 'announced'), silent])).toBe('announced');
          clearTimeout(timer);
          watch.close();
        } finally {
          await s.close();
          await deleteKeysWithPrefix(admin, clientPrefix);
          await client.quit();
        }
      },
    );
  });
});

describe('RedisStore on a client with enableAutoPipelining', () => {
  it('claims, replays byte for byte and completes once under 8 concurrent deliveries of 50 keys', async () => {
    // ioredis 6.0 loses the command name of callBuffer() when auto-pipelining is on; the store must not depend on it.
    const client = new Redis(redisTestUrl(), { enableAutoPipelining: true, lazyConnect: true });
    await client.connect();
    const prefix = `payonce-autopipe-${randomUUID()}:`;
    try {
      const store = new RedisStore({ client, prefix });
      const guard = new IdempotencyGuard(store);
      const runs = new Map<string, number>();
      const keys = Array.from({ length: 50 }, (_, i) => new RequestKey('stripe', `evt_${i}`));
      const body = randomBytes(64);
      const outcomes = await Promise.all(
        keys.flatMap((key) =>
          Array.from({ length: 8 }, () =>
            guard
              .run(key, async () => {
                runs.set(key.externalId, (runs.get(key.externalId) ?? 0) + 1);
                return { status: 200, headers: {}, body };
              })
              .catch((error: unknown) => error),
          ),
        ),
      );
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(runs.size).toBe(keys.length);
      const replay = await guard.run(keys[0] as RequestKey, async () => {
        throw new Error('must not run again');
      });
      expect(Buffer.from(replay.response.body).equals(body)).toBe(true);
      expect(outcomes.filter((o) => o instanceof Error && !(o instanceof RequestInProgress))).toEqual([]);
    } finally {
      const admin = redisTestClient();
      await deleteKeysWithPrefix(admin, prefix);
      admin.disconnect();
      client.disconnect();
    }
  });
});
