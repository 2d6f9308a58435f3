/**
 * The part of an ioredis client that `RedisStore` calls: `callBuffer`, which sends one raw command and
 * returns every bulk string of the reply as a `Buffer`, so stored response bodies never pass through a
 * UTF-8 decode. Arguments that are `Buffer`s are sent as raw bytes; strings are sent as UTF-8; numbers as
 * their decimal text. Integers come back as `number`, nil as `null`, arrays as arrays.
 *
 * ioredis `Redis` and `Cluster` (v5 and v6) both satisfy it; in a cluster every script of one store runs on
 * one slot because all of its keys share a hash tag (see `RedisStore`).
 * @see STYLE §4 "Depend on shapes, not drivers".
 * @example const store = new RedisStore({ client: new Redis('redis://127.0.0.1:6379') });
 */
export interface RedisLike {
  callBuffer(command: string, ...args: (string | Buffer | number)[]): Promise<unknown>;
  /**
   * `EVALSHA` with Buffer replies (ioredis' command method). Used instead of `callBuffer('EVALSHA', …)` when
   * present: with `enableAutoPipelining: true`, ioredis 6.0 drops the command name of `callBuffer` (Redis then
   * answers `ERR unknown command`), while its command methods are pipelined correctly.
   */
  evalshaBuffer?(sha: string, numberOfKeys: number, ...args: (string | Buffer | number)[]): Promise<unknown>;
  /** `EVAL` with Buffer replies (ioredis' command method); used like `evalshaBuffer` when present. */
  evalBuffer?(script: string, numberOfKeys: number, ...args: (string | Buffer | number)[]): Promise<unknown>;
  /**
   * ioredis' command methods for the steps that run without a script (the claim, reading a receipt); each is used
   * instead of `callBuffer` when present (same reason as `evalshaBuffer`). `hgetallBuffer` answers an object of
   * `Buffer`s.
   */
  hsetnx?(key: string, field: string, value: string | Buffer): Promise<number>;
  hgetallBuffer?(key: string): Promise<Record<string, Buffer>>;
  /** `SCAN cursor MATCH pattern COUNT n` with `Buffer` replies, run by the purge on each server. */
  scanBuffer?(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[Buffer, Buffer[]]>;
  /** ioredis options: the `keyPrefix` ioredis puts before every key (not before a SCAN pattern, so the purge does). */
  readonly options?: { readonly keyPrefix?: string };
  /** True on an ioredis `Cluster`: finishes are then announced with sharded pub/sub (`SPUBLISH`). */
  readonly isCluster?: boolean;
  /**
   * A new connection with the same options (ioredis `Redis#duplicate(options)`, `Cluster#duplicate(nodes,
   * options)`): the store's subscriber for waiting duplicates when none is given.
   */
  duplicate?(...args: never[]): RedisSubscriberLike;
  /**
   * ioredis `Redis#stream`: the connection's socket. The store corks it for the rest of a tick so the commands of
   * concurrent calls leave in one write (`TickPipeline`); without it (and without `nodes`) they are written singly.
   */
  readonly stream?: unknown;
  /**
   * ioredis `Cluster#nodes('master')`: the masters, whose sockets the store corks like `stream` and on which the
   * purge runs its SCAN (each master is an ioredis `Redis`).
   */
  nodes?(role: 'master'): readonly RedisNodeLike[];
}

/**
 * The part of an ioredis connection (or `Cluster`) a `RedisStore` subscribes on, so duplicates waiting for an
 * in-flight claim are woken by the finish announcement of the complete/fail scripts (issue #15). A connection
 * in subscriber mode runs no other command: the store makes its own with `duplicate()` unless one is given.
 * `message` is emitted for `SUBSCRIBE`, `smessage` for `SSUBSCRIBE` (sharded pub/sub, Redis 7+, Cluster).
 */
export interface RedisSubscriberLike {
  subscribe(...channels: string[]): Promise<unknown>;
  ssubscribe?(...channels: string[]): Promise<unknown>;
  on(event: 'message' | 'smessage', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error' | 'close' | 'reconnecting', listener: (...args: unknown[]) => void): unknown;
  disconnect(): void;
  /**
   * ioredis: `'wait'` until a `lazyConnect` connection is connected. A subscriber made by `duplicate()` of a
   * `RedisStore.connect` client is lazy and has no offline queue, so it is connected before it subscribes.
   */
  readonly status?: string;
  /** ioredis `connect()`: opens a `lazyConnect` connection. */
  connect?(): Promise<unknown>;
}

/** One master of a Cluster (`RedisLike.nodes`): its socket, and the commands the purge's SCAN sends to it. */
export interface RedisNodeLike {
  readonly stream?: unknown;
  callBuffer?(command: string, ...args: (string | Buffer | number)[]): Promise<unknown>;
  scanBuffer?(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[Buffer, Buffer[]]>;
}
