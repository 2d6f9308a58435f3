/**
 * `payonce/redis`: the Redis receipt store (ioredis, an optional peer dependency).
 * @see docs/design.md §3; `RedisStore` for the key layout and Redis Cluster hash tag.
 * @example
 * import { IdempotencyGuard } from 'payonce';
 * import { RedisStore } from 'payonce/redis';
 * const guard = new IdempotencyGuard(await RedisStore.connect('redis://127.0.0.1:6379'));
 */

export { MissingPeer } from '../../core/import-peer.js';
export {
  ADAPTIVE_PIPELINING_DEFAULTS,
  AdaptivePipelining,
  type AdaptivePipeliningSettings,
  PIPELINING_AGREEMENT,
  type PipeliningProbe,
} from './adaptive-pipelining.js';
export { type RedisKeys, redisKeys } from './redis-keys.js';
export type { RedisLike, RedisSubscriberLike } from './redis-like.js';
export { type RedisConnectOptions, RedisStore } from './redis-store.js';
export type { RedisStoreOptions } from './redis-store-options.js';
