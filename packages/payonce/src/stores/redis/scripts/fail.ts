import { RedisScript } from '../redis-script.js';
import { HELD_CLAIM_LUA } from './held-claim.js';

/**
 * Fenced failure: only if the receipt's claim is held (`p`) at the handler's attempt and not completed, marks the
 * claim failed (`f`) and stores `e` = `<finished_at>:<error>` (receipt-fields.ts). docs/design.md §3.
 * KEYS[1] receipt hash. ARGV: attempt, now_ms, error text (already bounded), the announce command (`PUBLISH`,
 * `SPUBLISH` or empty) and the channel, the receipt id: announced when a waiter set its flag, as in complete.ts.
 * Reply: 1 when recorded, 0 when the claim was lost or the receipt is of the previous layout (nothing changed).
 */
export const failScript = new RedisScript(
  1,
  `${HELD_CLAIM_LUA}redis.call('HSET', KEYS[1], 'status', attempts .. ':f:' .. claimed .. ':' .. fingerprint, 'e', ARGV[2] .. ':' .. ARGV[3])
if ARGV[4] ~= '' and redis.call('HEXISTS', KEYS[1], 'w') == 1 then
  redis.pcall(ARGV[4], ARGV[5], ARGV[6])
end
return 1
`,
);
