import { CLAIM_PATTERN } from './claim-pattern.js';

/**
 * The Lua opening shared by the fenced steps that change a held claim (fail.ts, renew.ts): reads the claim of
 * KEYS[1] and answers 0 unless it is held (`p`) at the attempt ARGV[1] and not completed (no `d`). Leaves `attempts`,
 * `state`, `claimed` (claimed_at) and `fingerprint` (the packed fingerprint part) as locals for the rest of the script.
 * docs/design.md §3 "Fencing".
 */
export const HELD_CLAIM_LUA = `
local claim = redis.call('HGET', KEYS[1], 'status')
if not claim then
  return 0
end
local attempts, state, claimed, fingerprint = string.match(claim, '${CLAIM_PATTERN}')
if state ~= 'p' or tonumber(attempts) ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[1], 'd') == 1 then
  return 0
end
`;
