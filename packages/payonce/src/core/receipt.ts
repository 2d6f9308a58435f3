import type { RequestKey } from './request-key.js';

/**
 * Lifecycle of a receipt: `processing` → `completed` | `failed`; `failed` → `processing` on the next
 * delivery; a stale `processing` → `processing` again (takeover). `completed` is terminal.
 * @see docs/design.md §3 "Receipt states".
 */
export type ReceiptStatus = 'processing' | 'completed' | 'failed';

/**
 * A handler's response as stored and replayed byte for byte: HTTP-like status, headers (names as given),
 * body bytes. `status` is an integer 100–599.
 */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The stored state of one key, as a store returns it. Times are Unix epoch milliseconds, UTC. */
export interface Receipt {
  readonly key: RequestKey;
  readonly status: ReceiptStatus;
  /** Number of claims so far (1 after the first); also the fencing token of the current claim. */
  readonly attempts: number;
  /**
   * When the current claim was taken or last renewed by its owner's heartbeat (`Store.renewClaim`): its lease
   * ends at `claimedAtMs + leaseMs`, after which the claim may be taken over.
   */
  readonly claimedAtMs: number;
  /** When the receipt became `completed` or `failed`; `null` while `processing`. */
  readonly finishedAtMs: number | null;
  /** SHA-256 hex of the payload of the first claim, if the caller supplied one. */
  readonly fingerprint: string | null;
  /** The stored response; set only when `completed`. */
  readonly response: StoredResponse | null;
  /** The handler's error text (bounded); set only when `failed`. */
  readonly error: string | null;
}

/**
 * The receipt a successful first claim creates: `processing`, attempt 1, claimed at `nowMs` (Unix epoch ms),
 * nothing finished yet. Every store returns exactly this from an `insertClaim` that inserted.
 * @see docs/design.md §3 "Claim".
 */
export function firstClaimReceipt(key: RequestKey, nowMs: number, fingerprint: string | null): Receipt {
  return Object.freeze({
    key,
    status: 'processing',
    attempts: 1,
    claimedAtMs: nowMs,
    finishedAtMs: null,
    fingerprint,
    response: null,
    error: null,
  });
}
