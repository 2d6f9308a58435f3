import { RECEIPTS_TABLE } from './receipts-table.js';
import { type SqlContext, statement } from './sql-context.js';

const FINISHED = ['completed', 'failed'];

/**
 * Deletes at most `limit` finished receipts with `finished_at < beforeMs`: selects a batch of their keys, then
 * deletes those keys re-checking the same conditions (a receipt retried in between is kept). Portable:
 * MySQL forbids LIMIT inside an IN-subquery. Returns the number of rows deleted.
 */
export async function purgeBatch(ctx: SqlContext, beforeMs: number, limit: number): Promise<number> {
  const keys = await statement(ctx, () =>
    ctx.db
      .selectFrom(RECEIPTS_TABLE)
      .select(['provider', 'external_id'])
      .where('status', 'in', FINISHED)
      .where('finished_at', '<', beforeMs)
      .limit(limit)
      .execute(),
  );
  if (keys.length === 0) return 0;
  const result = await statement(ctx, () =>
    ctx.db
      .deleteFrom(RECEIPTS_TABLE)
      .where((eb) =>
        eb.or(keys.map((k) => eb.and([eb('provider', '=', k.provider), eb('external_id', '=', k.external_id)]))),
      )
      .where('status', 'in', FINISHED)
      .where('finished_at', '<', beforeMs)
      .executeTakeFirst(),
  );
  return Number(result.numDeletedRows);
}
