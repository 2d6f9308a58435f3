import { RedisScript } from '../redis-script.js';

/**
 * Deletes at most `limit` finished receipts with finished_at < before_ms, oldest first, walking the finished
 * index. An index entry whose receipt is missing or not finished is dropped without counting, and the walk
 * goes on, so a short count always means nothing older is left. `processing` receipts are never deleted.
 * KEYS[1] finished index, KEYS[2] receipt key base (declared as a key so a client `keyPrefix` and cluster
 * routing apply to it; it shares the hash tag). ARGV: before_ms, limit.
 * Reply: the number of receipts deleted.
 */
export const purgeBatchScript = new RedisScript(
  2,
  `
local limit = tonumber(ARGV[2])
local deleted = 0
while deleted < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, limit - deleted)
  if #ids == 0 then
    break
  end
  for _, id in ipairs(ids) do
    redis.call('ZREM', KEYS[1], id)
    local key = KEYS[2] .. id
    local status = redis.call('HGET', key, 'status')
    if status == 'completed' or status == 'failed' then
      redis.call('DEL', key)
      deleted = deleted + 1
    end
  end
end
return deleted
`,
);
