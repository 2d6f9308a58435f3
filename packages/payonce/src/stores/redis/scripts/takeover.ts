import { RedisScript } from '../redis-script.js';
import { CLAIM_PATTERN } from './claim-pattern.js';

/**
 * Compare-and-set on (state, attempts): a failed claim (retry) or a stale held one (takeover) becomes a new held
 * claim with attempts + 1, claimed_at = now_ms and the same fingerprint; the error goes, and so does a stray
 * completion `d` next to a failed claim (no step of this store writes one; a hand-edited hash could), so a retry never
 * shows an old response as its own. A completed receipt (a
 * held claim with `d`) is never touched. docs/design.md §3 "Stale takeover".
 * A receipt of the previous layout (`legacy-receipt.ts`: `status` is a word) is judged by its `status` and
 * `attempts` fields the same way and, when taken, rewritten in this layout: its old fields are deleted and its id
 * leaves that layout's finished-at sorted sets.
 * KEYS[1] receipt hash, KEYS[2] the old layout's finished index, KEYS[3] its per-provider finished index of the
 * receipt's provider. ARGV: expected_status (`processing` or `failed`), expected_attempts, now_ms, receipt id.
 * Reply: the new claim field (receipt-fields.ts), or nil when the receipt changed first (or does not exist).
 */
export const takeoverScript = new RedisScript(
  3,
  `
local claim = redis.call('HGET', KEYS[1], 'status')
if not claim then
  return false
end
local attempts, state, _, fingerprint = string.match(claim, '${CLAIM_PATTERN}')
local legacy = attempts == nil
if legacy then
  state = claim
  attempts = redis.call('HGET', KEYS[1], 'attempts')
  local stored = redis.call('HGET', KEYS[1], 'fingerprint')
  fingerprint = stored and ('=' .. stored) or '-'
elseif state == 'f' then
  state = 'failed'
elseif redis.call('HEXISTS', KEYS[1], 'd') == 1 then
  state = 'completed'
else
  state = 'processing'
end
if state == 'completed' or state ~= ARGV[1] or tonumber(attempts) ~= tonumber(ARGV[2]) then
  return false
end
local next = (tonumber(attempts) + 1) .. ':p:' .. ARGV[3] .. ':' .. fingerprint
if legacy then
  redis.call('HDEL', KEYS[1], 'provider', 'external_id', 'attempts', 'claimed_at', 'finished_at', 'fingerprint',
    'error', 'response_status', 'response_headers', 'response_body')
  redis.call('ZREM', KEYS[2], ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[4])
end
redis.call('HDEL', KEYS[1], 'e', 'd')
redis.call('HSET', KEYS[1], 'status', next)
return next
`,
);
