import { sql } from 'kysely';
import { bufferOf } from '../../core/buffer-of.js';
import type { StoredResponse } from '../../core/receipt.js';
import type { FinishRequest } from '../../core/store.js';
import { writeBeforeCommit } from './before-commit.js';
import { claimHeld } from './claim-held.js';
import { defineStatement } from './compiled-statement.js';
import { holdsGroupClaim } from './group-claims.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** The compare-and-set UPDATE to `completed`, fenced by status `processing` and the attempt (fixed values as SQL literals). */
const COMPLETE_RECEIPT = defineStatement(
  ['provider', 'externalId', 'attempt', 'nowMs', 'responseStatus', 'responseHeaders', 'responseBody'],
  (db, p) =>
    db
      .updateTable(RECEIPTS_TABLE)
      .set({
        status: sql.lit('completed'),
        finished_at: p.nowMs,
        response_status: p.responseStatus,
        response_headers: p.responseHeaders,
        response_body: p.responseBody,
        error: sql.lit(null),
      })
      .$call(claimHeld(p)),
);

/**
 * Compare-and-set completion: stores the response (status, headers as JSON, body bytes) and marks the row
 * `completed` only if it is still `processing` at `attempt` (fencing). False when the claim was lost. A receipt
 * claimed with its group transaction's others (`claimForGroup`) is completed with the transaction's deferred writes
 * just before its commit (`writeBeforeCommit`): the uncommitted row is this transaction's alone, so the fence holds;
 * the deferred write must touch its row, or the whole batch is rolled back and runs again caller by caller.
 * @see docs/design.md §3 "Fencing".
 */
export async function completeReceipt(
  ctx: SqlContext,
  request: FinishRequest & { readonly response: StoredResponse },
): Promise<boolean> {
  const { key, attempt, nowMs, response } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const values = {
    provider,
    externalId,
    attempt,
    nowMs,
    responseStatus: response.status,
    responseHeaders: JSON.stringify(response.headers),
    responseBody: bufferOf(response.body),
  };
  if (ctx.inTransaction && holdsGroupClaim(ctx, key, attempt)) {
    await writeBeforeCommit(ctx.db, ctx.statements.template(COMPLETE_RECEIPT).bind(values), { mustTouch: true });
    return true;
  }
  const result = await runStatement(ctx, COMPLETE_RECEIPT, values);
  return (result.numAffectedRows ?? 0n) > 0n;
}
