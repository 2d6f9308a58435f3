import type { StoredResponse } from '../../core/receipt.js';
import type { FinishRequest } from '../store.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { bindBytes, keyValues, type SqlContext, statement } from './sql-context.js';

/**
 * Compare-and-set completion: stores the response (status, headers as JSON, body bytes) and marks the row
 * `completed` only if it is still `processing` at `attempt` (fencing). False when the claim was lost.
 * @see SPEC §3 "fencing by attempt".
 */
export async function completeReceipt(
  ctx: SqlContext,
  request: FinishRequest & { readonly response: StoredResponse },
): Promise<boolean> {
  const { key, attempt, nowMs, response } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const result = await statement(ctx, () =>
    ctx.db
      .updateTable(RECEIPTS_TABLE)
      .set({
        status: 'completed',
        finished_at: nowMs,
        response_status: response.status,
        response_headers: JSON.stringify(response.headers),
        response_body: bindBytes(response.body),
        error: null,
      })
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .where('status', '=', 'processing')
      .where('attempts', '=', attempt)
      .executeTakeFirst(),
  );
  return result.numUpdatedRows > 0n;
}
