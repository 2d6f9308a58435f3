import type { Receipt } from '../../core/receipt.js';
import type { TakeoverRequest } from '../../core/store.js';
import { defineStatement } from './compiled-statement.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** The compare-and-set UPDATE back to `processing`, fenced by the status and attempt count the caller saw. */
const TAKEOVER = defineStatement(
  ['provider', 'externalId', 'expectedStatus', 'expectedAttempts', 'attempts', 'nowMs'],
  (db, p) =>
    db
      .updateTable(RECEIPTS_TABLE)
      .set({
        status: 'processing',
        attempts: p.attempts,
        claimed_at: p.nowMs,
        finished_at: null,
        response_status: null,
        response_headers: null,
        response_body: null,
        error: null,
      })
      .where('provider', '=', p.provider)
      .where('external_id', '=', p.externalId)
      .where('status', '=', p.expectedStatus)
      .where('attempts', '=', p.expectedAttempts),
);

/** Reads back the immutable fingerprint of the row just taken over. */
const SELECT_FINGERPRINT = defineStatement(['provider', 'externalId'], (db, p) =>
  db
    .selectFrom(RECEIPTS_TABLE)
    .select('fingerprint')
    .where('provider', '=', p.provider)
    .where('external_id', '=', p.externalId),
);

/**
 * Compare-and-set takeover: moves the row to `processing`, `attempts + 1`, `claimed_at = now` only if it still
 * has the status and attempt count the caller saw; the affected-row count says who won. A `completed` row is
 * never matched. The immutable fingerprint is read back to build the new receipt. @see docs/design.md §3 "Stale takeover".
 */
export async function takeover(ctx: SqlContext, request: TakeoverRequest): Promise<Receipt | null> {
  const { key, expectedStatus, expectedAttempts, nowMs } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const attempts = expectedAttempts + 1;
  const result = await runStatement(ctx, TAKEOVER, {
    provider,
    externalId,
    expectedStatus,
    expectedAttempts,
    attempts,
    nowMs,
  });
  if ((result.numAffectedRows ?? 0n) === 0n) return null;
  const { rows } = await runStatement(ctx, SELECT_FINGERPRINT, { provider, externalId });
  return Object.freeze({
    key,
    status: 'processing',
    attempts,
    claimedAtMs: nowMs,
    finishedAtMs: null,
    fingerprint: rows[0]?.fingerprint ?? null,
    response: null,
    error: null,
  });
}
