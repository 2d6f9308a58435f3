import { RedisScript } from '../redis-script.js';

/**
 * Claim = create the receipt hash only if absent (SPEC §3: one atomic step, never "select, then insert").
 * KEYS[1] receipt hash. ARGV: now_ms, has_fingerprint ('1' | '0'), fingerprint, provider, external_id.
 * Reply: integer 1 when created (`processing`, attempts 1, claimed_at = now_ms); otherwise the existing
 * receipt as the flat field/value array of HGETALL.
 */
export const insertClaimScript = new RedisScript(
  1,
  `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'provider', ARGV[4], 'external_id', ARGV[5], 'status', 'processing',
  'attempts', '1', 'claimed_at', ARGV[1])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[3])
end
return 1
`,
);
