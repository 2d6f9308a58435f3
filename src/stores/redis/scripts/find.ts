import { RedisScript } from '../redis-script.js';

/**
 * Reads one receipt. KEYS[1] receipt hash. Reply: its HGETALL array (empty when there is no receipt).
 * A script rather than a bare HGETALL so every step goes through the same binary-safe reply path.
 */
export const findScript = new RedisScript(
  1,
  `
return redis.call('HGETALL', KEYS[1])
`,
);
