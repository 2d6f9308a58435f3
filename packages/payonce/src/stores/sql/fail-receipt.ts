import { sql } from 'kysely';
import type { FinishRequest } from '../../core/store.js';
import { claimHeld } from './claim-held.js';
import { defineStatement } from './compiled-statement.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** The compare-and-set UPDATE to `failed`, fenced by status `processing` and the attempt. */
const FAIL_RECEIPT = defineStatement(['provider', 'externalId', 'attempt', 'nowMs', 'error'], (db, p) =>
  db
    .updateTable(RECEIPTS_TABLE)
    .set({ status: sql.lit('failed'), finished_at: p.nowMs, error: p.error })
    .$call(claimHeld(p)),
);

/**
 * Compare-and-set failure: stores the (already bounded) error text and marks the row `failed` only if it is
 * still `processing` at `attempt`. False when the claim was lost. @see docs/design.md §3 "Handler failure".
 */
export async function failReceipt(
  ctx: SqlContext,
  request: FinishRequest & { readonly error: string },
): Promise<boolean> {
  const { key, attempt, nowMs, error } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const result = await runStatement(ctx, FAIL_RECEIPT, { provider, externalId, attempt, nowMs, error });
  return (result.numAffectedRows ?? 0n) > 0n;
}
