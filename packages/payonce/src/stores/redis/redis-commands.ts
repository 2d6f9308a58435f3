import type { RedisLike, RedisNodeLike } from './redis-like.js';

/**
 * The plain commands `RedisStore` sends, each through ioredis' command method when the client has it and through
 * `callBuffer` otherwise (ioredis 6.0 loses the command name of `callBuffer` under `enableAutoPipelining`). Replies
 * keep bulk strings as `Buffer`s.
 */
export const commands = {
  hsetnx(client: RedisLike, key: string, field: string, value: string | Buffer): Promise<unknown> {
    return client.hsetnx ? client.hsetnx(key, field, value) : client.callBuffer('HSETNX', key, field, value);
  },
  hgetall(client: RedisLike, key: string): Promise<unknown> {
    return client.hgetallBuffer ? client.hgetallBuffer(key) : client.callBuffer('HGETALL', key);
  },
  /** One `SCAN` step on `node`: the next cursor (text) and the key names found (text, UTF-8). */
  async scan(node: RedisNodeLike, cursor: string, pattern: string, count: number): Promise<[string, string[]]> {
    let reply: unknown;
    if (node.scanBuffer) reply = await node.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', count);
    else if (node.callBuffer) reply = await node.callBuffer('SCAN', cursor, 'MATCH', pattern, 'COUNT', count);
    else throw new Error('redis: a server of the client cannot SCAN (no callBuffer)');
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
      throw new Error('redis: SCAN answered an unexpected reply');
    }
    const [next, keys] = reply as [unknown, unknown[]];
    const names = keys.map((name) => (Buffer.isBuffer(name) ? name.toString('utf8') : String(name)));
    return [Buffer.isBuffer(next) ? next.toString('latin1') : String(next), names];
  },
};
