import { RedisScript } from '../redis-script.js';
import { CLAIM_PATTERN } from './claim-pattern.js';

/**
 * Counts, among the receipt hashes it is given (one page of a SCAN, `RedisAbandonedCount`), the held claims that are
 * not completed and whose claimed_at (the last heartbeat, Unix epoch ms) is before ARGV[1] — judged as purge-batch.ts
 * judges an abandoned claim: a packed claim in state `p` without a completion `d`, or a receipt of the previous
 * layout whose `status` is `processing` (its `claimed_at` field). A hash without a claim and a key of another type
 * (`pcall`) are not counted. Reads only. Reply: the count.
 */
export const countAbandonedScript = new RedisScript(
  null,
  `
local cutoff = tonumber(ARGV[1])
local count = 0
for i = 1, #KEYS do
  local key = KEYS[i]
  local claim = redis.pcall('HGET', key, 'status')
  if type(claim) == 'string' then
    local at
    local _, state, claimed = string.match(claim, '${CLAIM_PATTERN}')
    if state == 'p' then
      if redis.call('HEXISTS', key, 'd') == 0 then
        at = claimed
      end
    elseif claim == 'processing' then
      at = redis.call('HGET', key, 'claimed_at')
    end
    if at and tonumber(at) and tonumber(at) < cutoff then
      count = count + 1
    end
  end
end
return count
`,
);
