import { randomUUID } from 'node:crypto';
import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimLost, StoreUnavailable } from '../../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { type OwnRedis, startOwnRedis } from './own-redis.js';

/**
 * A TCP proxy in front of a Redis that can lose one reply: once armed, the next bytes the server sends back are
 * dropped and both sockets are destroyed — the command ran on the server, its answer never reached the client (a
 * network cut, a NAT timeout, a load balancer restart). Later connections pass through.
 */
async function replyLosingProxy(port: number): Promise<{ url: string; arm(): void; close(): Promise<void> }> {
  let armed = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new NetSocket();
    sockets.add(client);
    sockets.add(upstream);
    upstream.connect(port, '127.0.0.1');
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (armed) {
        armed = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    arm: () => {
      armed = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until the store's connection is back (the proxy cut it). */
async function reconnected(store: RedisStore): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await store.ping().then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the store did not reconnect');
}

describe('redis attack: a reply lost after the server ran the command (connection cut, then reconnect)', () => {
  let redis: OwnRedis;
  let proxy: Awaited<ReturnType<typeof replyLosingProxy>>;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startOwnRedis();
    proxy = await replyLosingProxy(redis.port);
    store = await RedisStore.connect(proxy.url, { prefix: 'loss:', timeoutMs: 1_000 });
    // Load every script once, so the reply lost below is the command's own answer, not a NOSCRIPT.
    const warm = new IdempotencyGuard(store);
    await warm.run(new RequestKey('loss', `warm-${randomUUID()}`), async () => ({ body: 'warm' }));
  });
  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await redis?.kill();
  });

  it('a recorded completion whose reply was lost is never reported as a lost claim', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('loss', `complete-${randomUUID()}`);
    const outcome = await guard
      .run(key, async () => {
        proxy.arm();
        return { body: 'recorded' };
      })
      .catch((error: unknown) => error);
    await reconnected(store);
    const receipt = await store.find(key);
    expect(receipt?.status).toBe('completed');
    // The completion is stored: success, or "unknown" (503), are true answers; "taken over, not recorded" is not.
    expect(outcome).not.toBeInstanceOf(ClaimLost);
    if (outcome instanceof Error) expect(outcome).toBeInstanceOf(StoreUnavailable);
  });

  it('a claim whose reply was lost does not answer in-progress for its own claim', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('loss', `claim-${randomUUID()}`);
    let runs = 0;
    proxy.arm();
    const outcome = await guard
      .run(key, async () => {
        runs++;
        return { body: 'ran' };
      })
      .catch((error: unknown) => error);
    await reconnected(store);
    // The caller is told the store failed, as for a SQL commit whose reply was lost; the claim stands, nothing ran,
    // and the next delivery after the lease takes it over (the old code resent the HSETNX and read its own claim as
    // someone else's: RequestInProgress).
    expect(outcome).toBeInstanceOf(StoreUnavailable);
    expect((await store.find(key))?.status).toBe('processing');
    expect(runs).toBe(0);
  });
});
