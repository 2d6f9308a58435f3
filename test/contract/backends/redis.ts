import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import type { TestBackend } from '../backend.js';

/** The test server: `PAYONCE_REDIS_URL`, or the machine's Redis on 127.0.0.1:6379. */
export const redisTestUrl = (): string => process.env.PAYONCE_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A new connection that gives up on a command after a few reconnects instead of waiting for a down server. */
export function redisTestClient(): Redis {
  return new Redis(redisTestUrl(), { maxRetriesPerRequest: 3, connectTimeout: 5_000 });
}

/** Deletes every key that starts with `prefix` (SCAN, never KEYS) and returns how many there were. */
export async function deleteKeysWithPrefix(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/**
 * A fresh random key prefix on the test Redis. `open()` returns a store on a NEW ioredis connection each call
 * (all sharing the prefix); `cleanup()` deletes every key with the prefix and quits every connection.
 */
export async function redisBackend(): Promise<TestBackend> {
  const prefix = `payonce-test-${randomUUID()}:`;
  const clients: Redis[] = [];
  const stores: RedisStore[] = [];
  const connect = (): Redis => {
    const client = redisTestClient();
    clients.push(client);
    return client;
  };
  return {
    name: 'redis',
    open: async () => {
      const store = new RedisStore({ client: connect(), prefix });
      stores.push(store);
      return store;
    },
    cleanup: async () => {
      try {
        await Promise.all(stores.map((store) => store.close()));
        await deleteKeysWithPrefix(connect(), prefix);
      } finally {
        await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
      }
    },
  };
}
