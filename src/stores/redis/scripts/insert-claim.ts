import { RedisScript } from '../redis-script.js';

/**
 * Claim = create the receipt hash only if absent (docs/design.md §3: one atomic step, never "select, then insert").
 * KEYS[1] receipt hash. ARGV: now_ms, provider, external_id, and the fingerprint only when there is one (a
 * fourth argument, so an empty fingerprint stays distinct from none).
 * Reply: integer 1 when created (`processing`, attempts 1, claimed_at = now_ms); otherwise the existing
 * receipt as the flat field/value array of HGETALL.
 *
 * Hot path: one EXISTS and one HSET that writes every field of the new receipt.
 */
export const insertClaimScript = new RedisScript(
  1,
  `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
if ARGV[4] then
  redis.call('HSET', KEYS[1], 'provider', ARGV[2], 'external_id', ARGV[3], 'status', 'processing',
    'attempts', '1', 'claimed_at', ARGV[1], 'fingerprint', ARGV[4])
else
  redis.call('HSET', KEYS[1], 'provider', ARGV[2], 'external_id', ARGV[3], 'status', 'processing',
    'attempts', '1', 'claimed_at', ARGV[1])
end
return 1
`,
);
