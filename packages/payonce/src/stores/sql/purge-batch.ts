import type { ExpressionBuilder } from 'kysely';
import type { PurgeCutoffs } from '../../core/store.js';
import { deleteReceiptTraces } from './receipt-trace.js';
import type { ReceiptsDatabase } from './receipts-table.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyPart, type SqlContext, statement } from './sql-context.js';
import { onSchema } from './table-namespace.js';

const FINISHED = ['completed', 'failed'];
/** Keys per DELETE: keeps the OR chain far below SQLite's expression depth limit (1000) and Kysely's recursion. */
const DELETE_CHUNK = 100;

/**
 * The purge condition, re-checked by the DELETE: finished before `beforeMs`, or `processing` with its last heartbeat
 * (`claimed_at`) before `abandonedBeforeMs` (an abandoned claim; a live one renews `claimed_at` every heartbeat).
 */
function purgeable({ beforeMs, abandonedBeforeMs }: PurgeCutoffs) {
  return (eb: ExpressionBuilder<ReceiptsDatabase, typeof RECEIPTS_TABLE>) => {
    const finished = eb.and([eb('status', 'in', FINISHED), eb('finished_at', '<', beforeMs)]);
    if (abandonedBeforeMs === null) return finished;
    return eb.or([finished, eb.and([eb('status', '=', 'processing'), eb('claimed_at', '<', abandonedBeforeMs)])]);
  };
}

type ReceiptKeyRow = { provider: string | Uint8Array; external_id: string | Uint8Array };

/**
 * Up to `limit` keys of purgeable receipts: finished ones first (the (finished_at) index, or (provider, finished_at)
 * of migration 0005 when scoped), then abandoned claims (the (status, claimed_at) index of migration 0001).
 */
async function purgeableKeys(
  ctx: SqlContext,
  { beforeMs, abandonedBeforeMs }: PurgeCutoffs,
  limit: number,
  scope: string | Uint8Array | null,
): Promise<ReceiptKeyRow[]> {
  const select = (abandoned: number | null, max: number) =>
    statement(ctx, () => {
      let query = onSchema<ReceiptsDatabase>(ctx.db, ctx.schema, ctx.tablePrefix)
        .selectFrom(RECEIPTS_TABLE)
        .select(['provider', 'external_id']);
      query =
        abandoned !== null
          ? query.where('status', '=', 'processing').where('claimed_at', '<', abandoned)
          : query.where('status', 'in', FINISHED).where('finished_at', '<', beforeMs);
      if (scope !== null) query = query.where('provider', '=', scope);
      return query.limit(max).execute();
    });
  const finished = await select(null, limit);
  if (finished.length >= limit || abandonedBeforeMs === null) return finished;
  return [...finished, ...(await select(abandonedBeforeMs, limit - finished.length))];
}

/**
 * Deletes at most `limit` receipts that finished before `cutoffs.beforeMs` (Unix epoch ms) or are abandoned claims
 * (`processing`, last heartbeat before `cutoffs.abandonedBeforeMs`) and, when `provider` is given, whose `provider` equals it byte
 * for byte (bound as UTF-8 bytes on MySQL's VARBINARY keys): selects a batch of their keys, then deletes those keys
 * re-checking the same conditions (a receipt retried or renewed in between is kept). Portable: MySQL forbids LIMIT
 * inside an IN-subquery. Unscoped, the (finished_at) index drives the select; scoped, the (provider, finished_at)
 * index of migration 0005 does, so a provider's purge never walks the other providers' old receipts. The delete
 * runs in chunks of 100 keys. Returns the number of rows deleted.
 * @see `Store.purgeBatch`; docs/design.md §3 "Purge".
 */
export async function purgeBatch(
  ctx: SqlContext,
  cutoffs: PurgeCutoffs,
  limit: number,
  provider?: string,
): Promise<number> {
  const scope = provider === undefined ? null : keyPart(ctx, provider);
  const keys = await purgeableKeys(ctx, cutoffs, limit, scope);
  let deleted = 0;
  for (let start = 0; start < keys.length; start += DELETE_CHUNK) {
    const chunk = keys.slice(start, start + DELETE_CHUNK);
    await deleteReceiptTraces(ctx, chunk);
    const result = await statement(ctx, () =>
      onSchema<ReceiptsDatabase>(ctx.db, ctx.schema, ctx.tablePrefix)
        .deleteFrom(RECEIPTS_TABLE)
        .where((eb) =>
          eb.or(chunk.map((k) => eb.and([eb('provider', '=', k.provider), eb('external_id', '=', k.external_id)]))),
        )
        .where(purgeable(cutoffs))
        .executeTakeFirst(),
    );
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
