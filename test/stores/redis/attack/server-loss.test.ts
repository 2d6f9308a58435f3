import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayonceError } from '../../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { type OwnRedis, startOwnRedis } from './own-redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('redis attack: the server is SIGKILLed and restarted under 64 concurrent calls', () => {
  let redis: OwnRedis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startOwnRedis();
    store = await RedisStore.connect(redis.url, { prefix: 'loss:', timeoutMs: 500 });
  });
  afterAll(async () => {
    await store?.close();
    await redis?.kill();
  });

  it('answers only typed errors while it is down, and exactly once per key after it is back', async () => {
    const guard = new IdempotencyGuard(store, { staleAfterMs: 200, waitForInFlightMs: 100 });
    const untyped: unknown[] = [];
    const codes = new Map<string, number>();
    let stop = false;
    const runId = randomUUID();
    const loop = async () => {
      while (!stop) {
        const key = new RequestKey('down', `${runId}-${Math.floor(Math.random() * 20)}`);
        try {
          await guard.run(key, async () => {
            await sleep(Math.random() * 30);
            return { body: 'x' };
          });
        } catch (error) {
          if (error instanceof PayonceError) codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
          else untyped.push(error);
          await sleep(5);
        }
      }
    };
    const loops = Array.from({ length: 64 }, loop);
    await sleep(700);
    await redis.kill();
    await sleep(700);
    await redis.restart();
    await sleep(1_500);
    stop = true;
    await Promise.all(loops);
    expect(untyped).toEqual([]);
    expect(codes.get('STORE_UNAVAILABLE') ?? 0).toBeGreaterThan(0);

    // Back up (an empty server: no persistence): 64 concurrent deliveries of fresh keys run each handler once.
    const runs = new Map<string, number>();
    const fresh = Array.from({ length: 8 }, (_, i) => new RequestKey('down', `after-${runId}-${i}`));
    await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        guard
          .run(
            fresh[i % 8] as RequestKey,
            async ({ key }) => {
              runs.set(key.externalId, (runs.get(key.externalId) ?? 0) + 1);
              await sleep(20);
              return { body: key.externalId };
            },
            { waitForInFlightMs: 2_000 },
          )
          .then((outcome) => expect(Buffer.from(outcome.response.body).toString()).toBe(fresh[i % 8]?.externalId)),
      ),
    );
    expect([...runs.values()]).toEqual(Array(8).fill(1));
  }, 30_000);
});
