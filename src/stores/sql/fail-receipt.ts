import type { FinishRequest } from '../store.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, type SqlContext, statement } from './sql-context.js';

/**
 * Compare-and-set failure: stores the (already bounded) error text and marks the row `failed` only if it is
 * still `processing` at `attempt`. False when the claim was lost. @see SPEC §3 "Handler throws".
 */
export async function failReceipt(
  ctx: SqlContext,
  request: FinishRequest & { readonly error: string },
): Promise<boolean> {
  const { key, attempt, nowMs, error } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const result = await statement(ctx, () =>
    ctx.db
      .updateTable(RECEIPTS_TABLE)
      .set({ status: 'failed', finished_at: nowMs, error })
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .where('status', '=', 'processing')
      .where('attempts', '=', attempt)
      .executeTakeFirst(),
  );
  return result.numUpdatedRows > 0n;
}
