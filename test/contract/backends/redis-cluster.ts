import { randomUUID } from 'node:crypto';
import { RedisStore } from '../../../packages/payonce/src/stores/redis/redis-store.js';
import { deleteClusterKeysWithPrefix, startRedisCluster } from '../../support/redis-cluster.js';
import type { TestBackend } from '../backend.js';

/**
 * A fresh 3-master Redis Cluster started for this backend (free ports, own directories) and a random prefix on
 * it. `open()` returns a store on a NEW ioredis `Cluster` connection each call; `cleanup()` closes the stores,
 * deletes the prefix's keys on every master and stops the servers by pid. Named `redis` (it is a `RedisStore`).
 */
export async function redisClusterBackend(): Promise<TestBackend> {
  const cluster = await startRedisCluster();
  const prefix = `payonce-test-${randomUUID()}:`;
  const stores: RedisStore[] = [];
  return {
    name: 'redis',
    async open() {
      const store = new RedisStore({ client: cluster.client(), prefix });
      stores.push(store);
      return store;
    },
    async cleanup() {
      try {
        await Promise.all(stores.map((store) => store.close()));
        await deleteClusterKeysWithPrefix(cluster.client(), prefix);
      } finally {
        await cluster.stop();
      }
    },
  };
}
