import { RedisScript } from '../redis-script.js';
import { HELD_CLAIM_LUA } from './held-claim.js';

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
  `${HELD_CLAIM_LUA}redis.call('HSET', KEYS[1], 'status', attempts .. ':p:' .. ARGV[2] .. ':' .. fingerprint)
return 1
`,
);
