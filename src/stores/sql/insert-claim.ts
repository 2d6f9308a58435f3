import { firstClaimReceipt } from '../../core/receipt.js';
import type { InsertClaimRequest, InsertClaimResult } from '../store.js';
import { defineStatement } from './compiled-statement.js';
import { isDuplicateKeyError } from './driver-error.js';
import { findReceipt } from './find-receipt.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** Insert-then-read rounds when a conflicting receipt is purged between the two statements. */
const MAX_ROUNDS = 3;

/** The claim INSERT of a `processing` row at attempt 1; `ON CONFLICT DO NOTHING` where the dialect uses it. */
const INSERT_CLAIM = defineStatement(['provider', 'externalId', 'nowMs', 'fingerprint'], (db, p, dialect) => {
  const query = db.insertInto(RECEIPTS_TABLE).values({
    provider: p.provider,
    external_id: p.externalId,
    status: 'processing',
    attempts: 1,
    claimed_at: p.nowMs,
    finished_at: null,
    created_at: p.nowMs,
    fingerprint: p.fingerprint,
    response_status: null,
    response_headers: null,
    response_body: null,
    error: null,
  });
  return dialect.claimInsert === 'on-conflict-do-nothing'
    ? query.onConflict((conflict) => conflict.columns(['provider', 'external_id']).doNothing())
    : query;
});

/**
 * The claim: ONE insert of a `processing` row with attempt 1, relying on the primary key
 * (provider, external_id). PostgreSQL/SQLite use `ON CONFLICT DO NOTHING`; MySQL a plain INSERT whose
 * duplicate-key error means "exists". Only when nothing was inserted is the existing row read.
 * Never "select, then insert". @see SPEC §3 "Claim".
 */
export async function insertClaim(ctx: SqlContext, request: InsertClaimRequest): Promise<InsertClaimResult> {
  const { key, nowMs, fingerprint } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const values = { provider, externalId, nowMs, fingerprint };
  const insert = async (): Promise<boolean> => {
    try {
      const result = await runStatement(ctx, INSERT_CLAIM, values);
      return (result.numAffectedRows ?? 0n) > 0n;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (await insert()) {
      const receipt = firstClaimReceipt(key, nowMs, fingerprint);
      return { inserted: true, receipt };
    }
    const existing = await findReceipt(ctx, key, true);
    if (existing) return { inserted: false, receipt: existing };
  }
  throw new Error(`receipt ${key.toString()} conflicted on insert but was gone on read ${MAX_ROUNDS} times`);
}
