import type { Receipt } from '../../core/receipt.js';
import type { TakeoverRequest } from '../store.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, type SqlContext, statement } from './sql-context.js';

/**
 * Compare-and-set takeover: moves the row to `processing`, `attempts + 1`, `claimed_at = now` only if it still
 * has the status and attempt count the caller saw; the affected-row count says who won. A `completed` row is
 * never matched. The immutable fingerprint is read back to build the new receipt. @see SPEC §3 "Stale takeover".
 */
export async function takeover(ctx: SqlContext, request: TakeoverRequest): Promise<Receipt | null> {
  const { key, expectedStatus, expectedAttempts, nowMs } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const attempts = expectedAttempts + 1;
  const result = await statement(ctx, () =>
    ctx.db
      .updateTable(RECEIPTS_TABLE)
      .set({
        status: 'processing',
        attempts,
        claimed_at: nowMs,
        finished_at: null,
        response_status: null,
        response_headers: null,
        response_body: null,
        error: null,
      })
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .where('status', '=', expectedStatus)
      .where('attempts', '=', expectedAttempts)
      .executeTakeFirst(),
  );
  if (result.numUpdatedRows === 0n) return null;
  const stored = await statement(ctx, () =>
    ctx.db
      .selectFrom(RECEIPTS_TABLE)
      .select('fingerprint')
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .executeTakeFirst(),
  );
  return Object.freeze({
    key,
    status: 'processing',
    attempts,
    claimedAtMs: nowMs,
    finishedAtMs: null,
    fingerprint: stored?.fingerprint ?? null,
    response: null,
    error: null,
  });
}
