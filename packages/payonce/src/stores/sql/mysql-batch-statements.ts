import { CompiledQuery } from 'kysely';
import { bufferOf } from '../../core/buffer-of.js';
import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { type BatchStatements, type ClaimRow, type CompleteRow, keyId } from './batch-statements.js';
import { isDuplicateKeyError } from './driver-error.js';
import { type ReceiptRow, toInt, toReceipt } from './receipt-row.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import type { SqlContext } from './sql-context.js';

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const placeholders = (count: number, group: string): string => Array.from({ length: count }, () => group).join(', ');

/**
 * A plain multi-row INSERT: it inserts every row, or fails whole with errno 1062 when some key exists (InnoDB rolls
 * the statement back). Neither `INSERT IGNORE` (which also turns truncation and bad values into warnings and stores
 * the altered row) nor `ON DUPLICATE KEY UPDATE` (its affected-row count does not say which rows were new; MariaDB's
 * RETURNING returns the rows of both kinds) can tell the caller exactly which of its rows it inserted.
 */
export function mysqlInsertClaimsSql(count: number, table = RECEIPTS_TABLE): string {
  return `insert into ${table} (provider, external_id, status, attempts, claimed_at, created_at, fingerprint) values ${placeholders(count, "(?, ?, 'processing', 1, ?, ?, ?)")}`;
}

/** The read-back of many keys: a row-constructor IN list, a range of primary-key lookups. */
export function mysqlFindReceiptsSql(count: number, table = RECEIPTS_TABLE): string {
  return `select * from ${table} where (provider, external_id) in (${placeholders(count, '(?, ?)')})`;
}

/**
 * The fenced completion of many rows: the rows' values as a derived table (UNION ALL of one-row SELECTs, valid on
 * MySQL 8 and MariaDB alike) joined on the primary key (`eq_ref`). MySQL has no RETURNING for UPDATE, so when
 * fewer rows changed than were sent the keys are read back (see `completeReceipts`).
 */
export function mysqlCompleteReceiptsSql(count: number, table = RECEIPTS_TABLE): string {
  const first = 'select ? as p, ? as e, ? as a, ? as n, ? as s, ? as h, ? as b';
  const rest = Array.from({ length: count - 1 }, () => ' union all select ?, ?, ?, ?, ?, ?, ?').join('');
  return `update ${table} as r join (${first}${rest}) as t on r.provider = t.p and r.external_id = t.e
set r.status = 'completed', r.finished_at = t.n, r.response_status = t.s, r.response_headers = t.h,
  r.response_body = t.b, r.error = null
where r.status = 'processing' and r.attempts = t.a`;
}

type FinishedRow = {
  provider: Uint8Array;
  external_id: Uint8Array;
  status: string;
  attempts: unknown;
  finished_at: unknown;
};

async function findRows<R>(ctx: SqlContext, keys: readonly RequestKey[], columns: string): Promise<R[]> {
  const sql = mysqlFindReceiptsSql(keys.length, ctx.receiptsTable).replace('select *', `select ${columns}`);
  const parameters = keys.flatMap((key) => [utf8(key.provider), utf8(key.externalId)]);
  const result = await ctx.db.executeQuery(CompiledQuery.raw(sql, parameters));
  return result.rows as R[];
}

/** MySQL 8 / MariaDB 10.6+: VARBINARY keys bound as UTF-8 bytes; the SQL text grows with the batch. */
export const mysqlBatchStatements: BatchStatements = Object.freeze({
  async insertClaims(ctx: SqlContext, rows: readonly ClaimRow[]): Promise<ReadonlySet<string> | 'none'> {
    const parameters = rows.flatMap((row) => [
      utf8(row.key.provider),
      utf8(row.key.externalId),
      row.nowMs,
      row.nowMs,
      row.fingerprint,
    ]);
    try {
      await ctx.db.executeQuery(CompiledQuery.raw(mysqlInsertClaimsSql(rows.length, ctx.receiptsTable), parameters));
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'none';
      throw error;
    }
    return new Set(rows.map((row) => keyId(row.key)));
  },

  async findReceipts(ctx: SqlContext, keys: readonly RequestKey[]): Promise<Map<string, Receipt>> {
    const found = new Map<string, Receipt>();
    for (const row of await findRows<ReceiptRow>(ctx, keys, '*')) {
      const receipt = toReceipt(row);
      found.set(keyId(receipt.key), receipt);
    }
    return found;
  },

  /**
   * All rows changed (the common case) → all completed by this statement. Otherwise the keys are read back: a row
   * is this statement's when it is `completed` at the caller's attempt with the caller's finish time — only the
   * holder of that attempt can complete it (fencing), and a completed row never changes again.
   */
  async completeReceipts(ctx: SqlContext, rows: readonly CompleteRow[]): Promise<ReadonlySet<string>> {
    const parameters = rows.flatMap((row) => [
      utf8(row.key.provider),
      utf8(row.key.externalId),
      row.attempt,
      row.nowMs,
      row.status,
      row.headersJson,
      bufferOf(row.body),
    ]);
    const result = await ctx.db.executeQuery(
      CompiledQuery.raw(mysqlCompleteReceiptsSql(rows.length, ctx.receiptsTable), parameters),
    );
    if (Number(result.numAffectedRows ?? 0n) === rows.length) return new Set(rows.map((row) => keyId(row.key)));
    const columns = 'provider, external_id, status, attempts, finished_at';
    let found: FinishedRow[];
    try {
      found = await findRows<FinishedRow>(
        ctx,
        rows.map((row) => row.key),
        columns,
      );
    } catch (error) {
      // The UPDATE has committed: this error must neither be retried nor split into single-row completions (they
      // would find their rows completed and answer "claim lost"); every caller gets it (StoreUnavailable).
      throw new Error('payonce batched completion committed, but reading back which rows it changed failed', {
        cause: error,
      });
    }
    const stored = new Map<string, FinishedRow>();
    for (const row of found) {
      stored.set(
        `${Buffer.from(row.provider).toString('utf8')}\u0000${Buffer.from(row.external_id).toString('utf8')}`,
        row,
      );
    }
    const completed = new Set<string>();
    for (const row of rows) {
      const id = keyId(row.key);
      const now = stored.get(id);
      if (
        now !== undefined &&
        now.status === 'completed' &&
        toInt(now.attempts as number, 'attempts') === row.attempt &&
        now.finished_at !== null &&
        toInt(now.finished_at as number, 'finished_at') === row.nowMs
      ) {
        completed.add(id);
      }
    }
    return completed;
  },
});
