import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { StoreUnavailable } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { receiptIdOf, redisKeys } from '../../../packages/payonce/src/stores/redis/redis-keys.js';
import type { RedisLike } from '../../../packages/payonce/src/stores/redis/redis-like.js';
import { RedisScript } from '../../../packages/payonce/src/stores/redis/redis-script.js';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { completeScript } from '../../../packages/payonce/src/stores/redis/scripts/complete.js';
import { failScript } from '../../../packages/payonce/src/stores/redis/scripts/fail.js';
import { flagWaiterScript } from '../../../packages/payonce/src/stores/redis/scripts/flag-waiter.js';
import { purgeBatchScript } from '../../../packages/payonce/src/stores/redis/scripts/purge-batch.js';
import { renewScript } from '../../../packages/payonce/src/stores/redis/scripts/renew.js';
import { takeoverScript } from '../../../packages/payonce/src/stores/redis/scripts/takeover.js';
import { deleteKeysWithPrefix, redisTestClient } from '../../contract/backends/redis.js';

const ALL_SCRIPTS = [takeoverScript, completeScript, failScript, flagWaiterScript, purgeBatchScript, renewScript];

/** A client that records the command name of every call before passing it on. */
function recording(inner: Redis): { client: RedisLike; commands: string[] } {
  const commands: string[] = [];
  return {
    commands,
    client: {
      callBuffer: (command, ...args) => {
        commands.push(command);
        return inner.callBuffer(command, ...args);
      },
    },
  };
}

describe('RedisStore scripts', () => {
  const prefix = `payonce-scripts-${randomUUID()}:`;
  let client: Redis;

  beforeAll(() => {
    client = redisTestClient();
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(client, prefix);
    await client.quit();
  });

  it('answers NOSCRIPT with one EVAL, then uses EVALSHA until the cache is flushed again', async () => {
    // A script no other test knows, so nothing else can load it between our steps.
    const script = new RedisScript(1, `return {KEYS[1], ARGV[1], '${randomUUID()}'}`);
    const { client: spy, commands } = recording(client);
    const run = async () => (await script.run(spy, [`${prefix}k`], [Buffer.from([0xff, 0x00])])) as Buffer[];
    const reply = await run();
    expect(reply[0]?.toString()).toBe(`${prefix}k`);
    expect(reply[1]).toEqual(Buffer.from([0xff, 0x00]));
    await run();
    expect(commands).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
    await client.script('FLUSH');
    commands.length = 0;
    await run();
    await run();
    expect(commands).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
  });

  it('rejects (never throws) for a wrong number of keys or a client that throws instead of rejecting', async () => {
    const script = new RedisScript(1, 'return 1');
    const wrongCount = script.run(client, [], []);
    await expect(wrongCount).rejects.toThrow(/script expects 1 keys, got 0/);
    const throwing: RedisLike = {
      callBuffer: () => {
        throw new Error('socket gone');
      },
    };
    let sent: Promise<unknown> | undefined;
    expect(() => {
      sent = script.run(throwing, [`${prefix}k`], []);
    }).not.toThrow();
    await expect(sent).rejects.toThrow('socket gone');
  });

  it('keeps a store working across SCRIPT FLUSH', async () => {
    const { client: spy, commands } = recording(client);
    const store = new RedisStore({ client: spy, prefix });
    const guard = new IdempotencyGuard(store, { clock: new ManualClock() });
    await guard.run(new RequestKey('flush', randomUUID()), () => ({ body: 'one' }));
    await client.script('FLUSH');
    commands.length = 0;
    const second = new RequestKey('flush', randomUUID());
    const outcome = await guard.run(second, () => ({ body: 'two' }));
    // The claim is a plain HSETNX; the completion's script is loaded again by one EVAL. (The script cache is the
    // server's: a test running beside this one may load the script again between the flush and the EVALSHA, which
    // then succeeds without the EVAL.)
    const afterRun = commands.length;
    expect([
      ['HSETNX', 'EVALSHA', 'EVAL'],
      ['HSETNX', 'EVALSHA'],
    ]).toContainEqual(commands);
    expect(Buffer.from(outcome.response.body).toString()).toBe('two');
    const replay = await guard.run(second, () => ({ body: 'never' }));
    expect(replay.isReplay).toBe(true);
    expect(Buffer.from(replay.response.body).toString()).toBe('two');
    expect(commands.slice(afterRun)).toEqual(['HSETNX', 'HGETALL']);
    expect(await client.script('EXISTS', completeScript.sha)).toEqual([1]);
  });

  it('has the SHA-1 that Redis computes for each script', async () => {
    for (const script of ALL_SCRIPTS) {
      expect(await client.script('LOAD', script.lua)).toBe(script.sha);
    }
  });

  it('lets a Redis error other than NOSCRIPT reach the guard as StoreUnavailable', async () => {
    const store = new RedisStore({ client, prefix });
    const key = new RequestKey('wrongtype', randomUUID());
    await client.set(redisKeys(prefix).receiptBase + receiptIdOf(key), 'not a hash');
    await expect(store.insertClaim({ key, nowMs: 1, fingerprint: null })).rejects.toThrow(/WRONGTYPE/);
    const guard = new IdempotencyGuard(store);
    await expect(guard.run(key, () => ({}))).rejects.toBeInstanceOf(StoreUnavailable);
  });

  it('reports a hash that is not a receipt instead of inventing one', async () => {
    const store = new RedisStore({ client, prefix });
    const key = new RequestKey('corrupt', randomUUID());
    await client.hset(redisKeys(prefix).receiptBase + receiptIdOf(key), 'status', 'paid', 'attempts', '1');
    await expect(store.find(key)).rejects.toThrow(/bad status paid/);
  });
});
