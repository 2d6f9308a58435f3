import { InvalidOption } from '../../core/errors.js';
import { AdaptivePipelining } from './adaptive-pipelining.js';
import type { RedisLike, RedisSubscriberLike } from './redis-like.js';

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
  /**
   * How complete and fail announce a finished receipt to duplicates waiting for it (`waitForInFlightMs`):
   * `publish` (classic pub/sub, any Redis), `spublish` (sharded pub/sub, Redis 7+: stays on the receipt's shard of
   * a Redis Cluster), or `off` (no announcement; waiters poll). Every process sharing the prefix must use the same.
   * @default `spublish` when `client.isCluster`, else `publish`
   */
  notify?: 'publish' | 'spublish' | 'off';
  /**
   * Makes the store's one subscriber connection (opened on the first wait, closed by `close()`), e.g.
   * `() => client.duplicate()`. @default `client.duplicate()` (on a Cluster with `shardedSubscribers: true`)
   */
  subscriber?: () => RedisSubscriberLike;
  /**
   * Automatic pipelining: the commands of every call made in one tick of the event loop (concurrent deliveries) go
   * to Redis in one socket write, as `TickPipeline` describes; each call still gets its own reply. Off by default,
   * each command is written at once, so Redis works on it while the client prepares the next: on a machine with
   * CPU to spare that is faster (8 concurrent `guard.run` calls: about 23 µs per delivery off against 32–50 µs on,
   * because corked writes make client and server take turns). Turn it on where the client's CPU is the limit
   * (many concurrent calls on a busy host): it saves system calls (at 64 concurrent calls ≈ 15 µs of client CPU per
   * delivery on against 23 µs off). Needs the client's socket (`client.stream`, or `client.nodes('master')` on a
   * Cluster); otherwise it has no effect. `'auto'`: the store measures both ways on its own commands and corks only
   * while corking answers them faster (`AdaptivePipelining`: a probe of a fraction of a second under load every
   * 30 s; choose it when the host is not known in advance). An `AdaptivePipelining` of your own does the same with
   * its own windows and period (one per store: it holds that store's measurements). @default false
   * (packages/bench/notes/redis.md)
   */
  pipelining?: boolean | 'auto' | AdaptivePipelining;
}

/** `RedisStoreOptions` after defaults and validation. */
export interface ResolvedRedisStoreOptions {
  readonly client: RedisLike;
  readonly prefix: string;
  readonly notify: 'publish' | 'spublish' | 'off';
  /** `null` when nothing can subscribe (no `duplicate()` and no `subscriber`) or `notify` is `off`. */
  readonly subscriber: (() => RedisSubscriberLike) | null;
  readonly pipelining: boolean | AdaptivePipelining;
}

const NOTIFY_MODES = ['publish', 'spublish', 'off'] as const;

function subscriberOf(client: RedisLike, given: (() => RedisSubscriberLike) | undefined) {
  if (given !== undefined) {
    if (typeof given !== 'function') throw new InvalidOption('subscriber', 'must be a function returning a connection');
    return given;
  }
  const duplicate = client.duplicate as ((...args: unknown[]) => RedisSubscriberLike) | undefined;
  if (typeof duplicate !== 'function') return null;
  return client.isCluster === true
    ? () => duplicate.call(client, [], { shardedSubscribers: true })
    : () => duplicate.call(client);
}

/**
 * Applies defaults and checks the options once.
 * @throws {InvalidOption} if `client` has no `callBuffer` method, or `prefix` is not a string or contains a
 * brace (which would change the Redis Cluster hash tag and split the store's keys across slots), `notify` is not
 * `publish`/`spublish`/`off`, `subscriber` is not a function, or `pipelining` is not true, false, `'auto'` or an
 * `AdaptivePipelining` made by its constructor (`undefined` and `null` mean the default, off).
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
  const notify = options.notify ?? (client.isCluster === true ? 'spublish' : 'publish');
  if (!NOTIFY_MODES.includes(notify))
    throw new InvalidOption('notify', `must be publish, spublish or off, got ${String(notify)}`);
  const subscriber = notify === 'off' ? null : subscriberOf(client, options.subscriber);
  const pipelining = options.pipelining ?? false;
  if (typeof pipelining !== 'boolean' && pipelining !== 'auto' && !AdaptivePipelining.isInstance(pipelining)) {
    throw new InvalidOption(
      'pipelining',
      `must be true, false, 'auto' or an AdaptivePipelining, got ${String(pipelining)}`,
    );
  }
  const chosen = pipelining === 'auto' ? new AdaptivePipelining() : pipelining;
  return Object.freeze({ client, prefix, notify, subscriber, pipelining: chosen });
}
