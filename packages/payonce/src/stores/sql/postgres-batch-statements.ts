import { CompiledQuery } from 'kysely';
import { bufferOf } from '../../core/buffer-of.js';
import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { type BatchStatements, type ClaimRow, type CompleteRow, keyId } from './batch-statements.js';
import { type ReceiptRow, toReceipt } from './receipt-row.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import type { SqlContext } from './sql-context.js';

/**
 * The claim of many keys: the rows come from parallel arrays (`unnest`), so the SQL text is the same whatever the
 * batch size. `ON CONFLICT DO NOTHING` probes the primary key row by row (no plan choice involved) and RETURNING
 * names the rows this statement inserted.
 */
export const PG_INSERT_CLAIMS = `insert into payonce_receipts
  (provider, external_id, status, attempts, claimed_at, finished_at, created_at, fingerprint)
select t.p, t.e, 'processing', 1, t.n, null, t.n, t.f
from unnest($1::varchar[], $2::varchar[], $3::bigint[], $4::text[]) as t(p, e, n, f)
on conflict (provider, external_id) do nothing
returning provider, external_id`;

/**
 * The read-back of many keys. The LATERAL subquery with OFFSET 0 cannot be flattened into a join, so each key is
 * one primary-key lookup whatever the table statistics (a hash join over the whole table is impossible).
 */
export const PG_FIND_RECEIPTS = `select r.*
from unnest($1::varchar[], $2::varchar[]) as k(p, e)
cross join lateral (
  select * from payonce_receipts where provider = k.p and external_id = k.e offset 0
) as r`;

/**
 * The fenced completion of many rows. The target rows are reached by their physical row ids (`ctid = ANY(…)`, a TID
 * scan) collected by per-key primary-key lookups (LATERAL … OFFSET 0), so no statistics can make the planner scan
 * the table: on a fresh, unanalysed table of 200 000 `processing` rows the plain `UPDATE … FROM unnest(…)` chose a
 * hash join over the (status, claimed_at) index, 290 ms for 256 rows; this form took 17 ms (packages/bench/notes/batched.md).
 * Under READ COMMITTED a row changed concurrently is re-read at its newest version and the fencing condition
 * (`processing` at the caller's attempt) is checked again on it; RETURNING names the rows this statement completed.
 */
export const PG_COMPLETE_RECEIPTS = `update payonce_receipts as r
set status = 'completed', finished_at = t.n, response_status = t.s, response_headers = t.h,
  response_body = t.b, error = null
from unnest($1::varchar[], $2::varchar[], $3::integer[], $4::bigint[], $5::integer[], $6::text[], $7::bytea[])
  as t(p, e, a, n, s, h, b)
where r.ctid = any(array(
    select x.ctid from unnest($1::varchar[], $2::varchar[]) as k(p, e)
    cross join lateral (
      select ctid from payonce_receipts where provider = k.p and external_id = k.e offset 0
    ) as x
  ))
  and r.provider = t.p and r.external_id = t.e
  and r.status = 'processing' and r.attempts = t.a
returning r.provider, r.external_id`;

/**
 * `text` with `payonce_receipts` as the store names it (`ctx.receiptsTable`: its schema and table prefix); `text`
 * itself with neither.
 */
function inSchema(ctx: SqlContext, text: string): string {
  return ctx.receiptsTable === RECEIPTS_TABLE ? text : text.replaceAll(RECEIPTS_TABLE, ctx.receiptsTable);
}

type KeyRow = { provider: string; external_id: string };

const idsOf = (rows: readonly KeyRow[]): Set<string> =>
  new Set(rows.map((row) => `${row.provider}\u0000${row.external_id}`));

/** PostgreSQL: one statement per batch, keys as `varchar[]` arrays (byte-exact text). */
export const postgresBatchStatements: BatchStatements = Object.freeze({
  async insertClaims(ctx: SqlContext, rows: readonly ClaimRow[]): Promise<ReadonlySet<string>> {
    const parameters = [
      rows.map((row) => row.key.provider),
      rows.map((row) => row.key.externalId),
      rows.map((row) => row.nowMs),
      rows.map((row) => row.fingerprint),
    ];
    const result = await ctx.db.executeQuery(CompiledQuery.raw(inSchema(ctx, PG_INSERT_CLAIMS), parameters));
    return idsOf(result.rows as KeyRow[]);
  },

  async findReceipts(ctx: SqlContext, keys: readonly RequestKey[]): Promise<Map<string, Receipt>> {
    const parameters = [keys.map((key) => key.provider), keys.map((key) => key.externalId)];
    const result = await ctx.db.executeQuery(CompiledQuery.raw(inSchema(ctx, PG_FIND_RECEIPTS), parameters));
    const found = new Map<string, Receipt>();
    for (const row of result.rows as ReceiptRow[]) {
      const receipt = toReceipt(row);
      found.set(keyId(receipt.key), receipt);
    }
    return found;
  },

  async completeReceipts(ctx: SqlContext, rows: readonly CompleteRow[]): Promise<ReadonlySet<string>> {
    const parameters = [
      rows.map((row) => row.key.provider),
      rows.map((row) => row.key.externalId),
      rows.map((row) => row.attempt),
      rows.map((row) => row.nowMs),
      rows.map((row) => row.status),
      rows.map((row) => row.headersJson),
      rows.map((row) => bufferOf(row.body)),
    ];
    const result = await ctx.db.executeQuery(CompiledQuery.raw(inSchema(ctx, PG_COMPLETE_RECEIPTS), parameters));
    return idsOf(result.rows as KeyRow[]);
  },
});
