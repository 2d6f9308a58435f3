import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyPart, type SqlContext, statement } from './sql-context.js';

const FINISHED = ['completed', 'failed'];
/** Keys per DELETE: keeps the OR chain far below SQLite's expression depth limit (1000) and Kysely's recursion. */
const DELETE_CHUNK = 100;

/**
 * Deletes at most `limit` finished receipts with `finished_at < beforeMs` (Unix epoch ms) and, when `provider` is
 * given, `provider` equal to it byte for byte (bound as UTF-8 bytes on MySQL's VARBINARY keys): selects a batch
 * of their keys, then deletes those keys re-checking the same conditions (a receipt retried in between is kept).
 * Portable: MySQL forbids LIMIT inside an IN-subquery. Unscoped, the (finished_at) index drives the select;
 * scoped, the (provider, finished_at) index of migration 0005 does, so a provider's purge never walks the other
 * providers' old receipts. The delete runs in chunks of 100 keys. Returns the number of rows deleted.
 * @see `Store.purgeBatch`; docs/design.md §3 "Purge".
 */
export async function purgeBatch(ctx: SqlContext, beforeMs: number, limit: number, provider?: string): Promise<number> {
  const scope = provider === undefined ? null : keyPart(ctx, provider);
  const keys = await statement(ctx, () => {
    let select = ctx.db
      .selectFrom(RECEIPTS_TABLE)
      .select(['provider', 'external_id'])
      .where('status', 'in', FINISHED)
      .where('finished_at', '<', beforeMs);
    if (scope !== null) select = select.where('provider', '=', scope);
    return select.limit(limit).execute();
  });
  let deleted = 0;
  for (let start = 0; start < keys.length; start += DELETE_CHUNK) {
    const chunk = keys.slice(start, start + DELETE_CHUNK);
    const result = await statement(ctx, () =>
      ctx.db
        .deleteFrom(RECEIPTS_TABLE)
        .where((eb) =>
          eb.or(chunk.map((k) => eb.and([eb('provider', '=', k.provider), eb('external_id', '=', k.external_id)]))),
        )
        .where('status', 'in', FINISHED)
        .where('finished_at', '<', beforeMs)
        .executeTakeFirst(),
    );
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
