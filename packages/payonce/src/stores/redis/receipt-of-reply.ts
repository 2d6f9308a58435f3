import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { legacyReceiptOf } from './legacy-receipt.js';
import {
  CLAIM_FIELD,
  COMPLETION_FIELD,
  ERROR_FIELD,
  headersOf,
  isPackedClaim,
  parseClaim,
  parseCompletion,
  parseFailure,
} from './receipt-fields.js';

/**
 * The fields of an HGETALL reply: ioredis answers a flat field/value array through `callBuffer`, and an object
 * through its `hgetallBuffer` method; both are accepted. Values are `Buffer`s.
 * @throws {Error} for any other reply.
 */
export function fieldsOf(reply: unknown): Map<string, Buffer> {
  const fields = new Map<string, Buffer>();
  if (Array.isArray(reply)) {
    if (reply.length % 2 !== 0) throw new Error('redis: expected a field/value array of even length');
    for (let i = 0; i < reply.length; i += 2) {
      const name: unknown = reply[i];
      const value: unknown = reply[i + 1];
      if (!Buffer.isBuffer(name) || !Buffer.isBuffer(value)) throw new Error('redis: hash field is not a bulk string');
      fields.set(name.toString('utf8'), value);
    }
    return fields;
  }
  if (typeof reply !== 'object' || reply === null) throw new Error(`redis: expected a hash, got ${typeof reply}`);
  for (const [name, value] of Object.entries(reply)) {
    if (!Buffer.isBuffer(value)) throw new Error('redis: hash field is not a bulk string');
    fields.set(name, value);
  }
  return fields;
}

/**
 * Turns the HGETALL reply of a receipt hash into a `Receipt`, or `null` when there is no receipt. The claim in
 * `status` decides (receipt-fields.ts): `f` → failed with `e`; `p` with `d` → completed; `p` without → processing.
 * A hash of the previous layout is read by `legacyReceiptOf`. The body is a fresh `Uint8Array` copy.
 * @throws {Error} if the hash is not a receipt written by `RedisStore` (the guard reports `StoreUnavailable`).
 */
export function receiptOfReply(key: RequestKey, reply: unknown): Receipt | null {
  const fields = fieldsOf(reply);
  const status = fields.get(CLAIM_FIELD)?.toString('utf8');
  if (status === undefined) return null;
  if (!isPackedClaim(status)) return legacyReceiptOf(key, fields);
  const claim = parseClaim(status);
  const base = { key, attempts: claim.attempts, claimedAtMs: claim.claimedAtMs, fingerprint: claim.fingerprint };
  if (claim.failed) {
    const failure = fields.get(ERROR_FIELD);
    if (failure === undefined) throw new Error(`redis: failed receipt ${key.toString()} has no error`);
    const { finishedAtMs, error } = parseFailure(failure);
    return Object.freeze({ ...base, status: 'failed', finishedAtMs, response: null, error });
  }
  const completion = fields.get(COMPLETION_FIELD);
  if (completion === undefined) {
    return Object.freeze({ ...base, status: 'processing', finishedAtMs: null, response: null, error: null });
  }
  const done = parseCompletion(completion);
  const response = Object.freeze({ status: done.status, headers: headersOf(done.headersJson, key), body: done.body });
  return Object.freeze({ ...base, status: 'completed', finishedAtMs: done.finishedAtMs, response, error: null });
}
