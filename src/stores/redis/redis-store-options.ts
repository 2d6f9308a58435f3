import { InvalidOption } from '../../core/errors.js';
import type { RedisLike } from './redis-like.js';

/** Options of `new RedisStore(…)`. */
export interface RedisStoreOptions {
  /**
   * The connection to use (an ioredis `Redis` or `Cluster`). The store never closes it: its owner does.
   * Use `RedisStore.connect(url)` for a store that owns (and `close()`s) its connection.
   */
  client: RedisLike;
  /**
   * Text put before every key of this store; stores with different prefixes never see each other's
   * receipts. The store adds its own hash tag after it (`<prefix>{receipts}:…`), so the prefix must not
   * contain `{` or `}`. @default 'payonce:'
   */
  prefix?: string;
}

/** `RedisStoreOptions` after defaults and validation. */
export interface ResolvedRedisStoreOptions {
  readonly client: RedisLike;
  readonly prefix: string;
}

/**
 * Applies defaults and checks the options once.
 * @throws {InvalidOption} if `client` has no `callBuffer` method, or `prefix` is not a string or contains a
 * brace (which would change the Redis Cluster hash tag and split the store's keys across slots).
 */
export function resolveRedisStoreOptions(options: RedisStoreOptions): ResolvedRedisStoreOptions {
  const client = options?.client;
  if (typeof client?.callBuffer !== 'function') {
    throw new InvalidOption('client', 'must be an ioredis client (a callBuffer method is required)');
  }
  const prefix = options.prefix ?? 'payonce:';
  if (typeof prefix !== 'string') throw new InvalidOption('prefix', `must be a string, got ${typeof prefix}`);
  if (prefix.includes('{') || prefix.includes('}')) {
    throw new InvalidOption('prefix', 'must not contain { or } (the store adds its own Redis Cluster hash tag)');
  }
  return Object.freeze({ client, prefix });
}
