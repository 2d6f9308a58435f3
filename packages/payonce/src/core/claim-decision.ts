import type { Receipt } from './receipt.js';

/** What the guard knows when an insert met an existing receipt: the time, the caller's fingerprint, the lease. */
export interface ClaimInput {
  /** The guard's clock, whole Unix epoch ms. */
  readonly nowMs: number;
  /** The caller's payload fingerprint, or `null` when it gave none (then payloads are not compared). */
  readonly fingerprint: string | null;
  /** How long (ms) a claim stays fresh after its last heartbeat (`GuardOptions.leaseMs`). */
  readonly leaseMs: number;
}

/**
 * The next step of the claim protocol for one existing receipt (docs/design.md §3 "Claim"):
 * - `mismatch`: the key was first claimed with fingerprint `stored`, not the caller's `given`: `PayloadMismatch`.
 * - `corrupted`: the caller has a fingerprint, the receipt's is NULL or empty: `ReceiptCorrupted`.
 * - `replay`: the receipt is `completed`: answer its stored response.
 * - `in-flight`: a fresh claim is held elsewhere, `leaseLeftMs` (> 0) of its lease left: wait or `RequestInProgress`.
 * - `take`: compare-and-set the receipt from `expectedStatus` at `expectedAttempts`; `takeover` for a stale
 *   `processing` claim (its worker stopped beating), `retry` for a `failed` one.
 */
export type ClaimStep =
  | { readonly kind: 'mismatch'; readonly stored: string; readonly given: string }
  | { readonly kind: 'corrupted'; readonly problem: 'fingerprint-missing' | 'fingerprint-empty' }
  | { readonly kind: 'replay' }
  | { readonly kind: 'in-flight'; readonly leaseLeftMs: number }
  | {
      readonly kind: 'take';
      readonly expectedStatus: 'processing' | 'failed';
      readonly expectedAttempts: number;
      readonly takeover: boolean;
      readonly retry: boolean;
    };

const REPLAY: ClaimStep = Object.freeze({ kind: 'replay' });

/**
 * Decides, without any store call, what the guard does with `existing`, the receipt its insert met. Pure: the
 * same receipt and input always give the same step. Payloads are compared first (a mismatch is reported whatever
 * the status), then a completed receipt replays, a fresh claim is in flight (its lease runs from `claimedAtMs`, the
 * last heartbeat), and a stale claim or a failed receipt is taken by compare-and-set on its attempt count.
 * @see docs/design.md §3 "Claim", "Stale takeover", "Payload fingerprint"; seed 004 (receipt lifecycle).
 */
export function decideClaim(existing: Receipt, input: ClaimInput): ClaimStep {
  if (input.fingerprint !== null) {
    const stored = existing.fingerprint;
    if (stored === null) return { kind: 'corrupted', problem: 'fingerprint-missing' };
    if (stored === '') return { kind: 'corrupted', problem: 'fingerprint-empty' };
    if (stored !== input.fingerprint) return { kind: 'mismatch', stored, given: input.fingerprint };
  }
  if (existing.status === 'completed') return REPLAY;
  const stale = existing.status === 'processing';
  if (stale) {
    const leaseLeftMs = existing.claimedAtMs + input.leaseMs - input.nowMs;
    if (leaseLeftMs > 0) return { kind: 'in-flight', leaseLeftMs };
  }
  return {
    kind: 'take',
    expectedStatus: existing.status,
    expectedAttempts: existing.attempts,
    takeover: stale,
    retry: !stale,
  };
}
