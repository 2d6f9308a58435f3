import { describe, expect, it } from 'vitest';
import { type ClaimStep, decideClaim } from '../../../packages/payonce/src/core/claim-decision.js';
import type { Receipt, ReceiptStatus } from '../../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';

// The claim decision as a table: every kind of existing receipt × the caller's input → the step. No store.

const LEASE_MS = 30_000;
const CLAIMED_AT = 1_000_000;
const FRESH = CLAIMED_AT + 10_000; // 20 000 ms of the lease left
const EXPIRED = CLAIMED_AT + LEASE_MS; // the lease ends exactly now: stale

function receipt(status: ReceiptStatus, fingerprint: string | null, attempts = 3): Receipt {
  return {
    key: new RequestKey('unit', 'decide'),
    status,
    attempts,
    claimedAtMs: CLAIMED_AT,
    finishedAtMs: status === 'processing' ? null : CLAIMED_AT + 5,
    fingerprint,
    response: status === 'completed' ? { status: 200, headers: {}, body: new Uint8Array() } : null,
    error: status === 'failed' ? 'Error: boom' : null,
  };
}

const take = (expectedStatus: 'processing' | 'failed'): ClaimStep => ({
  kind: 'take',
  expectedStatus,
  expectedAttempts: 3,
  takeover: expectedStatus === 'processing',
  retry: expectedStatus === 'failed',
});

type Row = [status: ReceiptStatus, stored: string | null, given: string | null, nowMs: number, step: ClaimStep];

const rows: Row[] = [
  // No fingerprint from the caller: the stored one is never looked at.
  ['completed', null, null, FRESH, { kind: 'replay' }],
  ['completed', 'aa', null, FRESH, { kind: 'replay' }],
  ['processing', null, null, FRESH, { kind: 'in-flight', leaseLeftMs: 20_000 }],
  ['processing', 'aa', null, CLAIMED_AT, { kind: 'in-flight', leaseLeftMs: LEASE_MS }],
  ['processing', null, null, EXPIRED - 1, { kind: 'in-flight', leaseLeftMs: 1 }],
  ['processing', null, null, EXPIRED, take('processing')],
  ['processing', '', null, EXPIRED + 60_000, take('processing')],
  ['failed', null, null, FRESH, take('failed')],
  ['failed', 'aa', null, EXPIRED, take('failed')],
  // The same fingerprint: as without one.
  ['completed', 'aa', 'aa', FRESH, { kind: 'replay' }],
  ['processing', 'aa', 'aa', FRESH, { kind: 'in-flight', leaseLeftMs: 20_000 }],
  ['processing', 'aa', 'aa', EXPIRED, take('processing')],
  ['failed', 'aa', 'aa', FRESH, take('failed')],
  // Another fingerprint: a mismatch whatever the status or the lease.
  ['completed', 'aa', 'bb', FRESH, { kind: 'mismatch', stored: 'aa', given: 'bb' }],
  ['processing', 'aa', 'bb', FRESH, { kind: 'mismatch', stored: 'aa', given: 'bb' }],
  ['processing', 'aa', 'bb', EXPIRED, { kind: 'mismatch', stored: 'aa', given: 'bb' }],
  ['failed', 'aa', 'bb', FRESH, { kind: 'mismatch', stored: 'aa', given: 'bb' }],
  // A fingerprint from the caller, none stored: corrupted, whatever the status.
  ['completed', null, 'bb', FRESH, { kind: 'corrupted', problem: 'fingerprint-missing' }],
  ['processing', null, 'bb', FRESH, { kind: 'corrupted', problem: 'fingerprint-missing' }],
  ['failed', null, 'bb', EXPIRED, { kind: 'corrupted', problem: 'fingerprint-missing' }],
  ['completed', '', 'bb', FRESH, { kind: 'corrupted', problem: 'fingerprint-empty' }],
  ['processing', '', 'bb', EXPIRED, { kind: 'corrupted', problem: 'fingerprint-empty' }],
  ['failed', '', 'bb', FRESH, { kind: 'corrupted', problem: 'fingerprint-empty' }],
];

describe('decideClaim', () => {
  it.each(rows)('a %s receipt with fingerprint %j, caller %j, at %d → %o', (status, stored, given, nowMs, step) => {
    const existing = receipt(status, stored);
    expect(decideClaim(existing, { nowMs, fingerprint: given, leaseMs: LEASE_MS })).toEqual(step);
  });

  it('fences a take on the attempt count it read', () => {
    const step = decideClaim(receipt('failed', null, 7), { nowMs: FRESH, fingerprint: null, leaseMs: LEASE_MS });
    expect(step).toMatchObject({ kind: 'take', expectedAttempts: 7 });
  });

  it('counts the lease from the last heartbeat: a clock behind the claim leaves more than the lease', () => {
    const step = decideClaim(receipt('processing', null), { nowMs: CLAIMED_AT - 5, fingerprint: null, leaseMs: 100 });
    expect(step).toEqual({ kind: 'in-flight', leaseLeftMs: 105 });
  });
});
