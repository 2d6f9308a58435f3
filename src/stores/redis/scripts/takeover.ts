import { RedisScript } from '../redis-script.js';

/**
 * Compare-and-set on (status, attempts): a `failed` receipt (retry) or a stale `processing` one (takeover)
 * moves to `processing`, attempts + 1, claimed_at = now_ms, without finished_at, error or response, and
 * leaves both finished indexes. A `completed` receipt is never touched. docs/design.md §3 "Stale takeover".
 * KEYS[1] receipt hash, KEYS[2] finished index, KEYS[3] the receipt provider's finished index.
 * ARGV: expected_status, expected_attempts, now_ms, receipt id.
 * Reply: the new receipt as an HGETALL array, or nil when the receipt changed first (or does not exist).
 */
export const takeoverScript = new RedisScript(
  3,
  `
local state = redis.call('HMGET', KEYS[1], 'status', 'attempts')
if state[1] == false or state[1] == 'completed' or state[1] ~= ARGV[1]
  or tonumber(state[2]) ~= tonumber(ARGV[2]) then
  return false
end
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('HSET', KEYS[1], 'status', 'processing', 'claimed_at', ARGV[3])
redis.call('HDEL', KEYS[1], 'finished_at', 'error', 'response_status', 'response_headers', 'response_body')
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[4])
return redis.call('HGETALL', KEYS[1])
`,
);
