import { RedisScript } from '../redis-script.js';
import { CLAIM_PATTERN } from './claim-pattern.js';

/**
 * The heartbeat of a running claim: only if the receipt's claim is held (`p`) at the owner's attempt and not
 * completed (no `d`), rewrites the claim with claimed_at = now_ms (attempts, state and fingerprint unchanged), so the
 * claim's lease runs again from now. A receipt of the previous layout is never renewed (its claims are not made by
 * this store's owners). docs/design.md §3 "Leases and heartbeats".
 * KEYS[1] receipt hash. ARGV: attempt, now_ms.
 * Reply: 1 when renewed, 0 when the claim was lost (taken over, failed, completed, purged).
 */
export const renewScript = new RedisScript(
  1,
  `
local claim = redis.call('HGET', KEYS[1], 'status')
if not claim then
  return 0
end
local attempts, state, _, fingerprint = string.match(claim, '${CLAIM_PATTERN}')
if state ~= 'p' or tonumber(attempts) ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[1], 'd') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'status', attempts .. ':p:' .. ARGV[2] .. ':' .. fingerprint)
return 1
`,
);
