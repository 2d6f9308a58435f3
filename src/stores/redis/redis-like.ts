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
}
