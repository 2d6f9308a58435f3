import { RedisScript } from '../redis-script.js';

/**
 * Deletes at most `limit` finished receipts with finished_at < before_ms, oldest first, walking one index:
 * the finished index (every provider) or one provider's finished index (that provider only). Each visited
 * entry leaves BOTH indexes (its provider is read from the id `<n>:<provider>:<externalId>`, `<n>` being the
 * provider's byte length), so neither index keeps an entry the other lost. An entry whose receipt is missing
 * or not finished is dropped without counting, and the walk goes on, so a short count always means nothing
 * older is left in the walked index. `processing` receipts are never deleted. One script: atomic.
 * KEYS[1] the index to walk, KEYS[2] receipt key base, KEYS[3] finished index, KEYS[4] per-provider finished
 * index base (bases are declared as keys so a client `keyPrefix` and cluster routing apply; all share the hash
 * tag). ARGV: before_ms, limit.
 * Reply: the number of receipts deleted.
 */
export const purgeBatchScript = new RedisScript(
  4,
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
    redis.call('ZREM', KEYS[3], id)
    local colon = string.find(id, ':', 1, true)
    local length = colon and tonumber(string.sub(id, 1, colon - 1))
    if length then
      redis.call('ZREM', KEYS[4] .. string.sub(id, colon + 1, colon + length), id)
    end
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
