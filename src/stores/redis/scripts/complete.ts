import { RedisScript } from '../redis-script.js';

/**
 * Fenced completion: only if the receipt is still `processing` at the handler's attempt, stores the
 * response (status, headers as a JSON object, body as raw bytes), finished_at = now_ms, and indexes the
 * receipt for purge in the finished index and in its provider's finished index. docs/design.md §3 "Fencing".
 * KEYS[1] receipt hash, KEYS[2] finished index, KEYS[3] the receipt provider's finished index.
 * ARGV: attempt, now_ms, receipt id, response status, response headers JSON, response body bytes, the announce
 * command (`PUBLISH`, `SPUBLISH` or empty for none) and the channel: a recorded finish is announced with the
 * receipt id, in the same atomic step, so waiting duplicates wake (issue #15). The channel carries the store's hash
 * tag, so on a Redis Cluster `SPUBLISH` stays on the receipt's shard. `pcall`: an announcement the server refuses (no
 * SPUBLISH before Redis 7, an ACL without PUBLISH) never fails the recorded completion; waiters then re-read each second.
 * Reply: 1 when recorded, 0 when the claim was lost (nothing changed, nothing announced).
 *
 * A `processing` receipt never has an `error` field (the claim creates the hash without one and takeover,
 * the only way back to `processing`, deletes it), so there is nothing to HDEL here: one HMGET, one HSET and
 * the two ZADDs.
 */
export const completeScript = new RedisScript(
  3,
  `
local state = redis.call('HMGET', KEYS[1], 'status', 'attempts')
if state[1] ~= 'processing' or tonumber(state[2]) ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'completed', 'finished_at', ARGV[2], 'response_status', ARGV[4],
  'response_headers', ARGV[5], 'response_body', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
if ARGV[7] ~= '' then
  redis.pcall(ARGV[7], ARGV[8], ARGV[3])
end
return 1
`,
);
