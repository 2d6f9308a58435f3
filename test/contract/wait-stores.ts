import { Cluster } from 'ioredis';
import { RedisStore } from '../../packages/payonce/src/stores/redis/redis-store.js';
import { type ClosableStore, openCrashStore } from './crash-stores.js';

/**
 * Opens a store for the wait tests: the shared backends of crash-stores.ts, plus `redis-cluster` whose target is
 * `<prefix>|<host:port,…>` (the masters of a test cluster).
 */
export async function openWaitStore(backend: string, target: string): Promise<ClosableStore> {
  if (backend !== 'redis-cluster') return openCrashStore(backend, target);
  const [prefix, nodes] = target.split('|');
  const startup = (nodes ?? '').split(',').map((node) => {
    const [host, port] = node.split(':');
    return { host: host ?? '127.0.0.1', port: Number(port) };
  });
  const client = new Cluster(startup, { redisOptions: { maxRetriesPerRequest: 3 } });
  client.on('error', () => {});
  const store = new RedisStore({ client, prefix: prefix ?? '' });
  return Object.assign(store, {
    close: async () => {
      await RedisStore.prototype.close.call(store);
      await client.quit().catch(() => client.disconnect());
    },
  });
}
