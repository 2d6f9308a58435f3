import { RedisScript } from '../redis-script.js';

/**
 * A duplicate about to wait for an in-flight claim sets the receipt's waiter flag (`w`), so its completer announces
 * the finish (receipt-fields.ts). Only on an existing receipt: a flag alone never creates a hash.
 * KEYS[1] receipt hash. Reply: 1 when set, 0 when there is no receipt.
 */
export const flagWaiterScript = new RedisScript(
  1,
  `
if redis.call('HEXISTS', KEYS[1], 'status') == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'w', '1')
return 1
`,
);
