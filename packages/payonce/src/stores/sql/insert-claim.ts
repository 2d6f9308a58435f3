import { sql } from 'kysely';
import { firstClaimReceipt } from '../../core/receipt.js';
import type { InsertClaimRequest, InsertClaimResult } from '../../core/store.js';
import { defineStatement } from './compiled-statement.js';
import { isDuplicateKeyError } from './driver-error.js';
import { findReceipt } from './find-receipt.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** Insert-then-read rounds when a conflicting receipt is purged between the two statements. */
const MAX_ROUNDS = 3;

/**
 * The claim INSERT of a `processing` row at attempt 1; `ON CONFLICT DO NOTHING` where the dialect uses it. The
 * fixed values are SQL literals, so only the 5 per-delivery values are bound (was 12 parameters).
 */
const INSERT_CLAIM = defineStatement(['provider', 'externalId', 'nowMs', 'fingerprint'], (db, p, dialect) => {
  const query = db.insertInto(RECEIPTS_TABLE).values({
    provider: p.provider,
    external_id: p.externalId,
    status: sql.lit('processing'),
    attempts: sql.lit(1),
    claimed_at: p.nowMs,
    finished_at: sql.lit(null),
    created_at: p.nowMs,
    fingerprint: p.fingerprint,
    response_status: sql.lit(null),
    response_headers: sql.lit(null),
    response_body: sql.lit(null),
    error: sql.lit(null),
  });
  return dialect.claimInsert === 'on-conflict-do-nothing'
    ? query.onConflict((conflict) => conflict.columns(['provider', 'external_id']).doNothing())
    : query;
});

/** One claim INSERT: true when the row was inserted, false when the key exists (no row, or MySQL's duplicate key). */
async function tryInsert(
  ctx: SqlContext,
  values: { provider: string | Uint8Array; externalId: string | Uint8Array; nowMs: number; fingerprint: string | null },
): Promise<boolean> {
  try {
    const result = await runStatement(ctx, INSERT_CLAIM, values);
    return (result.numAffectedRows ?? 0n) > 0n;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/**
 * The claim: ONE insert of a `processing` row with attempt 1, relying on the primary key
 * (provider, external_id). PostgreSQL/SQLite use `ON CONFLICT DO NOTHING`; MySQL a plain INSERT whose
 * duplicate-key error means "exists". Only when nothing was inserted is the existing row read.
 * Never "select, then insert". @see docs/design.md §3 "Claim".
 */
export async function insertClaim(ctx: SqlContext, request: InsertClaimRequest): Promise<InsertClaimResult> {
  const { key, nowMs, fingerprint } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const values = { provider, externalId, nowMs, fingerprint };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (await tryInsert(ctx, values)) {
      const receipt = firstClaimReceipt(key, nowMs, fingerprint);
      return { inserted: true, receipt };
    }
    const existing = await findReceipt(ctx, key, true);
    if (existing) return { inserted: false, receipt: existing };
  }
  throw new Error(`receipt ${key.toString()} conflicted on insert but was gone on read ${MAX_ROUNDS} times`);
}
