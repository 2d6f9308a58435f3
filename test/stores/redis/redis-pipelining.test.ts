import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { StoredResponse } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { AdaptivePipelining } from '../../../packages/payonce/src/stores/redis/adaptive-pipelining.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { completeScript } from '../../../packages/payonce/src/stores/redis/scripts/complete.js';
import {
  type CorkableStream,
  socketsOf,
  TickPipeline,
} from '../../../packages/payonce/src/stores/redis/tick-pipeline.js';
import { deleteKeysWithPrefix, redisTestClient, redisTestUrl } from '../../contract/backends/redis.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const ok = (body: string): StoredResponse => ({ status: 200, headers: {}, body: new TextEncoder().encode(body) });

/** Counts the socket writes of `client` (each `_write` or `_writev` is one system call's worth of data). */
function countWrites(client: Redis): { writes: () => number; chunks: () => number } {
  const socket = client.stream as Socket & {
    _write: (...args: unknown[]) => void;
    _writev: (chunks: unknown[], callback: unknown) => void;
  };
  let writes = 0;
  let chunks = 0;
  const write = socket._write.bind(socket);
  const writev = socket._writev.bind(socket);
  socket._write = (...args: unknown[]) => {
    writes++;
    chunks++;
    write(...args);
  };
  socket._writev = (list: unknown[], callback: unknown) => {
    writes++;
    chunks += list.length;
    writev(list, callback);
  };
  return { writes: () => writes, chunks: () => chunks };
}

describe('RedisStore pipelining', () => {
  const prefix = `payonce-pipelining-${randomUUID()}:`;
  const clients: Redis[] = [];
  const connected = async (): Promise<Redis> => {
    const client = redisTestClient();
    clients.push(client);
    await client.ping();
    // Script cache warm, so each completion below is exactly one EVALSHA (no NOSCRIPT + EVAL in between).
    await client.script('LOAD', completeScript.lua);
    return client;
  };
  const key = (label: string) => new RequestKey('pipelining', `${label}-${randomUUID()}`);

  afterAll(async () => {
    if (clients[0]) await deleteKeysWithPrefix(clients[0], prefix);
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  });

  it('sends the claims of 8 concurrent calls in one socket write, each with its own answer', async () => {
    const client = await connected();
    const store = new RedisStore({ client, prefix, pipelining: true });
    const counted = countWrites(client);
    const keys = Array.from({ length: 8 }, (_, i) => key(`c${i}`));
    const first = await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: T0, fingerprint: null })));
    expect(counted.writes()).toBe(1);
    expect(counted.chunks()).toBe(8);
    expect(first.map((r) => r.inserted)).toEqual(Array(8).fill(true));
    // The same keys again, in one tick: every call sees its own receipt, not a neighbour's. A duplicate's HSETNX
    // answers 0 and its HGETALL follows: one write for the 8 claims, one for the 8 reads.
    const again = await Promise.all(keys.map((k) => store.insertClaim({ key: k, nowMs: T0 + 1, fingerprint: 'fp' })));
    expect(counted.writes()).toBe(3);
    expect(counted.chunks()).toBe(24);
    expect(again.map((r) => [r.inserted, r.receipt.key.externalId, r.receipt.claimedAtMs])).toEqual(
      keys.map((k) => [false, k.externalId, T0]),
    );
  });

  it.each([
    ['pipelining: false', false],
    ['by default', undefined],
  ])('writes each command on its own %s', async (_label, pipelining) => {
    const client = await connected();
    const store = new RedisStore({ client, prefix, ...(pipelining === undefined ? {} : { pipelining }) });
    const counted = countWrites(client);
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => store.insertClaim({ key: key(`u${i}`), nowMs: T0, fingerprint: null })),
    );
    expect(counted.writes()).toBe(4);
  });

  it('groups whole deliveries: 8 concurrent guard.run calls cost about one write per step, not one per call', async () => {
    const client = await connected();
    const guard = new IdempotencyGuard(new RedisStore({ client, prefix, pipelining: true }), {
      clock: new ManualClock(T0),
    });
    const counted = countWrites(client);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => guard.run(key(`g${i}`), () => ({ body: `answer ${i}` }))),
    );
    expect(outcomes.map((o) => new TextDecoder().decode(o.response.body))).toEqual(
      Array.from({ length: 8 }, (_, i) => `answer ${i}`),
    );
    expect(counted.chunks()).toBe(16); // a claim and a completion per delivery
    expect(counted.writes()).toBeLessThanOrEqual(4); // claims together, completions together (2 when in step)
  });

  it('keeps fencing when a stale and a current completion of one key share a write', async () => {
    const client = await connected();
    const store = new RedisStore({ client, prefix, pipelining: true });
    const k = key('fence');
    await store.insertClaim({ key: k, nowMs: T0, fingerprint: null });
    const taken = await store.takeover({ key: k, expectedStatus: 'processing', expectedAttempts: 1, nowMs: T0 + 1 });
    expect(taken?.attempts).toBe(2);
    const counted = countWrites(client);
    // The taken-over handler (attempt 1) and the new one (attempt 2) finish in the same tick, stale one first.
    const [stale, current, late] = await Promise.all([
      store.complete({ key: k, attempt: 1, nowMs: T0 + 2, response: ok('stale') }),
      store.complete({ key: k, attempt: 2, nowMs: T0 + 3, response: ok('current') }),
      store.fail({ key: k, attempt: 2, nowMs: T0 + 4, error: 'too late' }),
    ]);
    expect(counted.writes()).toBe(1);
    expect([stale, current, late]).toEqual([false, true, false]);
    const receipt = await store.find(k);
    expect(receipt?.status).toBe('completed');
    expect(receipt?.attempts).toBe(2);
    expect(new TextDecoder().decode(receipt?.response?.body)).toBe('current');
  });

  it('lets exactly one of 20 same-tick claims of one key insert, the rest see it in flight', async () => {
    const client = await connected();
    const store = new RedisStore({ client, prefix, pipelining: true });
    const k = key('race');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.insertClaim({ key: k, nowMs: T0 + i, fingerprint: null })),
    );
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    expect(results.every((r) => r.receipt.status === 'processing' && r.receipt.claimedAtMs === T0)).toBe(true);
  });

  it('reloads the scripts after SCRIPT FLUSH (a restart or failover) when the NOSCRIPT replies come in one batch', async () => {
    const client = await connected();
    const store = new RedisStore({ client, prefix, pipelining: true });
    const guard = new IdempotencyGuard(store, { clock: new ManualClock(T0) });
    await client.script('FLUSH');
    const keys = Array.from({ length: 6 }, (_, i) => key(`flush${i}`));
    const outcomes = await Promise.all(keys.map((k, i) => guard.run(k, () => ({ body: `after flush ${i}` }))));
    expect(outcomes.map((o) => o.isReplay)).toEqual(Array(6).fill(false));
    const replays = await Promise.all(keys.map((k) => guard.run(k, () => ({ body: 'never' }))));
    expect(replays.map((o) => new TextDecoder().decode(o.response.body))).toEqual(
      keys.map((_, i) => `after flush ${i}`),
    );
    expect(await client.script('EXISTS', completeScript.sha)).toEqual([1]);
  });

  it('fails fast on a client without offline queue that is not connected, and works once it is', async () => {
    const { Redis } = await import('ioredis');
    const client = new Redis(redisTestUrl(), { lazyConnect: true, enableOfflineQueue: false });
    clients.push(client);
    const store = new RedisStore({ client, prefix, pipelining: true });
    await expect(store.insertClaim({ key: key('offline'), nowMs: T0, fingerprint: null })).rejects.toThrow(
      /enableOfflineQueue/,
    );
    // ioredis starts connecting on the refused command; once it is ready, the next call goes through.
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    const claimed = await store.insertClaim({ key: key('online'), nowMs: T0, fingerprint: null });
    expect(claimed.inserted).toBe(true);
  });
});

describe('TickPipeline', () => {
  const recorder = () => {
    const log: string[] = [];
    const stream = (name: string): CorkableStream => ({
      cork: () => log.push(`cork ${name}`),
      uncork: () => log.push(`uncork ${name}`),
    });
    return { log, stream };
  };

  it('corks once per tick and uncorks after the promise continuations of that tick have run', async () => {
    const { log, stream } = recorder();
    const socket = stream('a');
    const pipeline = new TickPipeline(() => [socket]);
    pipeline.hold();
    await Promise.resolve();
    pipeline.hold(); // a continuation of the same tick
    log.push('continuation');
    expect(pipeline.holding).toBe(true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(log).toEqual(['cork a', 'continuation', 'uncork a']);
    expect(pipeline.holding).toBe(false);
    pipeline.hold();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(log.slice(3)).toEqual(['cork a', 'uncork a']);
  });

  it('does nothing when the client exposes no socket', async () => {
    const pipeline = new TickPipeline(() => []);
    pipeline.hold();
    expect(pipeline.holding).toBe(false);
  });

  it('finds the socket of a Redis connection and of every master of a Cluster', () => {
    const { stream } = recorder();
    const a = stream('a');
    const b = stream('b');
    expect(socketsOf({ stream: a })).toEqual([a]);
    expect(socketsOf({ stream: 'not a socket' })).toEqual([]);
    expect(socketsOf({ isCluster: true, nodes: () => [{ stream: a }, { stream: undefined }, { stream: b }] })).toEqual([
      a,
      b,
    ]);
  });
});

describe('RedisStore pipelining on a busy connection', () => {
  let client: Redis;
  const prefix = `payonce-pipelining-busy-${randomUUID()}:`;
  beforeAll(async () => {
    client = redisTestClient();
    await client.ping();
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(client, prefix);
    await client.quit();
  });

  it('answers 8 concurrent callers × 100 deliveries exactly once each, with the owner’s own commands interleaved', async () => {
    const store = new RedisStore({ client, prefix, pipelining: true });
    const guard = new IdempotencyGuard(store);
    let runs = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < 800; i = next++) {
          const k = new RequestKey('busy', `evt_${i % 400}`);
          const [outcome] = await Promise.all([
            guard.run(k, () => ({ body: `r${++runs}` }), { waitForInFlightMs: 2_000 }),
            client.set(`${prefix}side:${i}`, String(i)),
          ]);
          expect(outcome.receipt.key.externalId).toBe(`evt_${i % 400}`);
        }
      }),
    );
    expect(runs).toBe(400);
    expect(await client.get(`${prefix}side:799`)).toBe('799');
  });

  it('with an adaptive pipeline, answers every delivery exactly once while it probes both ways, again and again', async () => {
    // Small windows and a short period, so these deliveries cross several probes whose windows switch between
    // corked and not mid-traffic (the defaults need some 65 000 commands for one probe).
    const chooser = new AdaptivePipelining({ warmup: 100, window: 200, pairs: 3, settledMs: 20 });
    const store = new RedisStore({ client, prefix: `${prefix}auto:`, pipelining: chooser });
    const guard = new IdempotencyGuard(store);
    const keys = 3_000;
    const handled = new Set<string>();
    let duplicatesRun = 0;
    let corkedStarts = 0;
    let plainStarts = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        // Each key twice: the copy is delivered 8 keys later, while the first may still be in flight.
        for (let i = next++; i < 2 * keys; i = next++) {
          const id = `evt_${i % 2 === 0 ? i / 2 : (i - 1) / 2 - 4}`;
          if (chooser.corking) corkedStarts++;
          else plainStarts++;
          const outcome = await guard.run(
            new RequestKey('auto', id),
            () => {
              if (handled.has(id)) duplicatesRun++;
              handled.add(id);
              return { body: `paid ${id}` };
            },
            { waitForInFlightMs: 2_000 },
          );
          expect(new TextDecoder().decode(outcome.response.body)).toBe(`paid ${id}`);
        }
      }),
    );
    expect(duplicatesRun).toBe(0);
    expect(store.pipeliningProbe?.ratios.length).toBeGreaterThan(0);
    expect(corkedStarts).toBeGreaterThan(0);
    expect(plainStarts).toBeGreaterThan(0);
  });
});
