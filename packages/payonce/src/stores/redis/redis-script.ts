import { createHash } from 'node:crypto';
import type { RedisLike } from './redis-like.js';

/** Argument of a script: text (sent as UTF-8), raw bytes, or a number (sent as decimal text). */
export type ScriptArg = string | Buffer | number;

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * One Lua script, run atomically by Redis. Sent as `EVALSHA`; when the server does not know the script
 * (first use, a restart, `SCRIPT FLUSH`, another cluster node) the `NOSCRIPT` reply is answered with one
 * `EVAL`, which also caches it on the server. Replies keep bulk strings as `Buffer`s (`evalshaBuffer` /
 * `evalBuffer` when the client has them, else `callBuffer`).
 */
export class RedisScript {
  readonly lua: string;
  /** SHA-1 hex of `lua`, as Redis computes it for `EVALSHA`. */
  readonly sha: string;
  /** How many keys every call passes, or `null` for a script that takes any number (purge-batch.ts). */
  readonly numberOfKeys: number | null;

  constructor(numberOfKeys: number | null, lua: string) {
    this.numberOfKeys = numberOfKeys;
    this.lua = lua;
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /**
   * Runs the script with `keys` (exactly `numberOfKeys` of them, when fixed) and `args`; resolves to the raw reply.
   * Not an async function: the driver's own promise is returned with one handler for `NOSCRIPT`, so the hot path
   * (the script is cached on the server) costs no frame of ours around it.
   * @throws (rejects) for a wrong number of keys, or the driver's error (other than a `NOSCRIPT` answered by `EVAL`).
   */
  run(client: RedisLike, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    if (this.numberOfKeys !== null && keys.length !== this.numberOfKeys) {
      return Promise.reject(new Error(`script expects ${this.numberOfKeys} keys, got ${keys.length}`));
    }
    const count = keys.length;
    let sent: Promise<unknown>;
    try {
      sent = client.evalshaBuffer
        ? client.evalshaBuffer(this.sha, count, ...keys, ...args)
        : client.callBuffer('EVALSHA', this.sha, count, ...keys, ...args);
    } catch (error) {
      return Promise.reject(error); // a client that throws instead of rejecting: still one rejected promise
    }
    return sent.catch((error: unknown) => this.#evalAfterNoScript(error, client, keys, args));
  }

  /** Answers a `NOSCRIPT` reply with one `EVAL` (which also caches the script); rethrows any other error. */
  #evalAfterNoScript(error: unknown, client: RedisLike, keys: readonly string[], args: readonly ScriptArg[]) {
    if (!isNoScript(error)) throw error;
    const count = keys.length;
    return client.evalBuffer
      ? client.evalBuffer(this.lua, count, ...keys, ...args)
      : client.callBuffer('EVAL', this.lua, count, ...keys, ...args);
  }
}
