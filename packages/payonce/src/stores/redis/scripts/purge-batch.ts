import { RedisScript } from '../redis-script.js';
import { CLAIM_PATTERN } from './claim-pattern.js';

/**
 * Deletes, among the receipt hashes it is given (one page of the purge's SCAN, `RedisPurge`), the finished ones
 * with finished_at < before_ms and the abandoned claims (held, not completed, claimed_at — the last heartbeat — <
 * abandoned_before_ms), at most `limit`, judging each atomically at the moment of deletion: a failed claim's `e`, a held claim's
 * completion `d` or else its claimed_at (receipt-fields.ts), or, for a receipt of the previous layout, its `status`
 * and `finished_at` or `claimed_at` (a finished one then also leaves that layout's finished-at sorted sets). A hash without a claim (not written by this store: its steps never make one) is left alone, and so is a
 * key of another type (`pcall`: its WRONGTYPE error would otherwise fail this page and every later purge).
 * The keys are the first `#KEYS - 3` KEYS; then the receipt key base, the old layout's finished index and its
 * per-provider index base (declared as keys so a client `keyPrefix` and cluster routing apply; all share the
 * store's hash tag). ARGV: before_ms, limit, abandoned_before_ms.
 * Reply: {deleted, examined}: how many receipts were deleted and how many of the given keys were looked at (all of
 * them unless the limit was reached first).
 */
export const purgeBatchScript = new RedisScript(
  null,
  `
local count = #KEYS - 3
local base, finished, byProvider = KEYS[count + 1], KEYS[count + 2], KEYS[count + 3]
local before, limit, abandoned = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3] or ARGV[1])
local deleted, examined = 0, 0
for i = 1, count do
  if deleted >= limit then
    break
  end
  examined = i
  local key = KEYS[i]
  local claim = redis.pcall('HGET', key, 'status')
  if type(claim) == 'string' then
    local at
    local _, state, claimed = string.match(claim, '${CLAIM_PATTERN}')
    local legacy = state == nil
    local cutoff = before
    if state == 'f' then
      at = string.match(redis.call('HGET', key, 'e') or '', '^(%d+):')
    elseif state == 'p' then
      at = string.match(redis.call('HGET', key, 'd') or '', '^(%d+):')
      if not at then
        at, cutoff = claimed, abandoned
      end
    elseif claim == 'completed' or claim == 'failed' then
      at = redis.call('HGET', key, 'finished_at')
    elseif claim == 'processing' then
      at, cutoff = redis.call('HGET', key, 'claimed_at'), abandoned
    end
    if at and tonumber(at) < cutoff then
      redis.call('DEL', key)
      deleted = deleted + 1
      if legacy then
        local id = string.sub(key, #base + 1)
        redis.call('ZREM', finished, id)
        local colon = string.find(id, ':', 1, true)
        local length = colon and tonumber(string.sub(id, 1, colon - 1))
        if length then
          redis.call('ZREM', byProvider .. string.sub(id, colon + 1, colon + length), id)
        end
      end
    end
  end
end
return {deleted, examined}
`,
);
