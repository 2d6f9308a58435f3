import type { Receipt, StoredResponse } from './receipt.js';

/**
 * What `IdempotencyGuard.run` returns: the response to send, whether it is a replay of a stored one
 * (the handler did not run), the receipt's attempt count, and the receipt as stored after this call.
 */
export interface Outcome {
  readonly response: StoredResponse;
  /** True when the handler did not run in this call and `response` is the stored one. */
  readonly isReplay: boolean;
  /** Claims made on this key so far, including this one. */
  readonly attempts: number;
  readonly receipt: Receipt;
}
