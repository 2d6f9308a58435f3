import { firstClaimReceipt } from '../../core/receipt.js';
import type { InsertClaimRequest, InsertClaimResult } from '../store.js';
import { isDuplicateKeyError } from './driver-error.js';
import { findReceipt } from './find-receipt.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, type SqlContext, statement } from './sql-context.js';

/** Insert-then-read rounds when a conflicting receipt is purged between the two statements. */
const MAX_ROUNDS = 3;

/**
 * The claim: ONE insert of a `processing` row with attempt 1, relying on the primary key
 * (provider, external_id). PostgreSQL/SQLite use `ON CONFLICT DO NOTHING`; MySQL a plain INSERT whose
 * duplicate-key error means "exists". Only when nothing was inserted is the existing row read.
 * Never "select, then insert". @see SPEC §3 "Claim".
 */
export async function insertClaim(ctx: SqlContext, request: InsertClaimRequest): Promise<InsertClaimResult> {
  const { key, nowMs, fingerprint } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const row = {
    provider,
    external_id: externalId,
    status: 'processing',
    attempts: 1,
    claimed_at: nowMs,
    finished_at: null,
    created_at: nowMs,
    fingerprint,
    response_status: null,
    response_headers: null,
    response_body: null,
    error: null,
  };
  const insert = async (): Promise<boolean> => {
    try {
      const query = ctx.db.insertInto(RECEIPTS_TABLE).values(row);
      const result =
        ctx.dialect.claimInsert === 'on-conflict-do-nothing'
          ? await query
              .onConflict((conflict) => conflict.columns(['provider', 'external_id']).doNothing())
              .executeTakeFirst()
          : await query.executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (await statement(ctx, insert)) {
      const receipt = firstClaimReceipt(key, nowMs, fingerprint);
      return { inserted: true, receipt };
    }
    const existing = await findReceipt(ctx, key, true);
    if (existing) return { inserted: false, receipt: existing };
  }
  throw new Error(`receipt ${key.toString()} conflicted on insert but was gone on read ${MAX_ROUNDS} times`);
}
