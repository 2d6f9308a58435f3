import { CLAIM_FIELD, TRACE_FIELD } from '../receipt-fields.js';
import { RedisScript } from '../redis-script.js';

/**
 * Stores the trace context of a receipt's first delivery in its hash, only when the receipt exists (a claim in
 * `status`: a purged receipt is never re-created as a hash holding a trace alone) and holds none yet (the first
 * writer keeps it). It goes with the hash when the receipt is purged. docs/observability.md "Propagation".
 * KEYS[1] receipt hash. ARGV: trace context (JSON text).
 * Reply: 1 when stored, 0 otherwise.
 */
export const recordTraceScript = new RedisScript(
  1,
  `if redis.call('HEXISTS', KEYS[1], '${CLAIM_FIELD}') == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], '${TRACE_FIELD}', ARGV[1])
`,
);
