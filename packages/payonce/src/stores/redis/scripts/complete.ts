import { RedisScript } from '../redis-script.js';
import { CLAIM_HEAD_PATTERN } from './claim-pattern.js';

/**
 * Fenced completion: only if the receipt's claim is held (`p`) at the handler's attempt and not completed yet,
 * writes the packed completion `d` (receipt-fields.ts). docs/design.md §3 "Fencing".
 * KEYS[1] receipt hash. ARGV: attempt, packed completion, the announce command (`PUBLISH`, `SPUBLISH` or empty)
 * and the channel, the receipt id: announced only when a duplicate waits (its flag `w` is set; the flag is set
 * after the waiter subscribed and before it re-reads, and this script reads `w` and writes `d` atomically — no
 * command runs between them, so reading the flag first changes nothing — so a waiter either is announced to or
 * reads the completion). `pcall`: a refused announcement (no SPUBLISH before
 * Redis 7, an ACL without PUBLISH) never fails the recorded completion; waiters then re-read each second.
 * Reply: 1 when recorded, 0 when the claim was lost or the receipt is of the previous layout (nothing changed).
 *
 * The hot path: one HMGET of the claim and the waiter flag, one HSETNX of one field (issue #17: the old script also
 * set five fields and two purge indexes; until Session 15 it read the flag with a `HEXISTS` of its own: the script
 * ran in 4.7–4.9 µs of Redis's time after, 4.9 µs before, packages/bench/notes/redis.md). The claim is matched by its head
 * only (`CLAIM_HEAD_PATTERN`, no string made of the fingerprint) and the attempt compared as text: ARGV[1] is the
 * decimal the store parsed from this field (`String` of it), and every claim this store writes spells attempts in
 * plain decimal (`packClaim`, the takeover script), so text equality is number equality; a hand-edited `01` would
 * only refuse the completion (claim lost), never accept a wrong one.
 */
export const completeScript = new RedisScript(
  1,
  `
local read = redis.call('HMGET', KEYS[1], 'status', 'w')
local claim = read[1]
if not claim then
  return 0
end
local attempts, state = string.match(claim, '${CLAIM_HEAD_PATTERN}')
if state ~= 'p' or attempts ~= ARGV[1] then
  return 0
end
if redis.call('HSETNX', KEYS[1], 'd', ARGV[2]) == 0 then
  return 0
end
if ARGV[3] ~= '' and read[2] then
  redis.pcall(ARGV[3], ARGV[4], ARGV[5])
end
return 1
`,
);
