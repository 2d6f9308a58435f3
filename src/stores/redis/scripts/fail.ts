import { RedisScript } from '../redis-script.js';

/**
 * Fenced failure: only if the receipt is still `processing` at the handler's attempt, marks it `failed`
 * with the (already bounded) error text, finished_at = now_ms, and indexes it for purge in the finished
 * index and in its provider's finished index. docs/design.md §3.
 * KEYS[1] receipt hash, KEYS[2] finished index, KEYS[3] the receipt provider's finished index.
 * ARGV: attempt, now_ms, receipt id, error text, the announce command (`PUBLISH`, `SPUBLISH` or empty) and the
 * channel, as in scripts/complete.ts.
 * Reply: 1 when recorded, 0 when the claim was lost (nothing changed).
 *
 * A `processing` receipt never has response fields (the claim creates the hash without them and takeover,
 * the only way back to `processing`, deletes them), so there is nothing to HDEL here.
 */
export const failScript = new RedisScript(
  3,
  `
local state = redis.call('HMGET', KEYS[1], 'status', 'attempts')
if state[1] ~= 'processing' or tonumber(state[2]) ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'failed', 'finished_at', ARGV[2], 'error', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
if ARGV[5] ~= '' then
  redis.pcall(ARGV[5], ARGV[6], ARGV[3])
end
return 1
`,
);
