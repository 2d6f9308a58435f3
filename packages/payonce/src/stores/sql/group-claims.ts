import { sql } from 'kysely';
import { firstClaimReceipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type { InsertClaimRequest, InsertClaimResult } from '../../core/store.js';
import { type BatchStatements, inKeyOrder, keyId } from './batch-statements.js';
import { defineStatement } from './compiled-statement.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** One key claimed for a caller of a group transaction before the callers run. */
interface GroupClaim {
  readonly request: InsertClaimRequest;
  readonly result: InsertClaimResult;
  /** Handed to the caller's own claim (`takeGroupClaim`): a second claim of the key goes to the database. */
  taken: boolean;
  /** Deleted again (`releaseGroupClaim`): the caller's work failed. */
  released: boolean;
}

/** The claims made together for the callers of a group transaction, by transaction and then by `keyId`. */
const claimsOf = new WeakMap<object, Map<string, GroupClaim>>();

/**
 * Claims the receipts of `requests` (distinct keys) in `ctx`'s transaction with ONE multi-row statement (and one
 * read of the keys that existed), before the callers of a group transaction run (`GroupCommit`, PostgreSQL): each
 * caller's own claim of its key is then answered from here (`takeGroupClaim`), with what the single-row claim would
 * have answered — the row it inserted, or the receipt that existed. A key that existed at the insert and was gone at
 * the read (purged in between) is left to its caller's own claim.
 * @throws whatever the driver throws; the transaction is then unusable (PostgreSQL), and the group commit runs each
 *   caller again in a transaction of its own.
 */
export async function claimForGroup(
  ctx: SqlContext,
  statements: BatchStatements,
  requests: readonly InsertClaimRequest[],
): Promise<void> {
  const byId = new Map<string, InsertClaimRequest>();
  for (const request of requests) if (!byId.has(keyId(request.key))) byId.set(keyId(request.key), request);
  const rows = inKeyOrder(byId);
  const inserted = await statements.insertClaims(ctx, rows);
  const claims = new Map<string, GroupClaim>();
  const existing: InsertClaimRequest[] = [];
  for (const request of rows) {
    const id = keyId(request.key);
    if (inserted !== 'none' && inserted.has(id)) {
      const receipt = firstClaimReceipt(request.key, request.nowMs, request.fingerprint);
      claims.set(id, { request, result: { inserted: true, receipt }, taken: false, released: false });
    } else existing.push(request);
  }
  if (existing.length > 0) {
    const found = await statements.findReceipts(
      ctx,
      existing.map((request) => request.key),
    );
    for (const request of existing) {
      const receipt = found.get(keyId(request.key));
      if (receipt)
        claims.set(keyId(request.key), {
          request,
          result: { inserted: false, receipt },
          taken: false,
          released: false,
        });
    }
  }
  claimsOf.set(ctx.db, claims);
}

/**
 * The answer `claimForGroup` made for the claim `request`, once, in the transaction of `ctx`; `null` when there is
 * none (no group claim of this key in this transaction, another fingerprint, or already handed out), and the claim
 * goes to the database.
 */
export function takeGroupClaim(ctx: SqlContext, request: InsertClaimRequest): InsertClaimResult | null {
  const claim = claimsOf.get(ctx.db)?.get(keyId(request.key));
  if (claim === undefined || claim.taken || claim.released || claim.request.fingerprint !== request.fingerprint) {
    return null;
  }
  claim.taken = true;
  return claim.result;
}

/**
 * True when `key` at `attempt` is a receipt this transaction inserted with `claimForGroup` and handed to its caller:
 * nobody else can change the uncommitted row, so its completion cannot miss its fence and may wait for the end of
 * the transaction (`writeBeforeCommit`).
 */
export function holdsGroupClaim(ctx: SqlContext, key: RequestKey, attempt: number): boolean {
  const claim = claimsOf.get(ctx.db)?.get(keyId(key));
  return claim?.result.inserted === true && claim.taken && !claim.released && attempt === 1;
}

/** Deletes a claim row this transaction inserted and still holds at its first attempt (fenced as a completion is). */
const DELETE_CLAIM = defineStatement(['provider', 'externalId'], (db, p) =>
  db
    .deleteFrom(RECEIPTS_TABLE)
    .where('provider', '=', p.provider)
    .where('external_id', '=', p.externalId)
    .where('status', '=', sql.lit('processing'))
    .where('attempts', '=', sql.lit(1)),
);

/**
 * Undoes `claimForGroup`'s row of `key` once its caller's work is over, when it must not commit: after the work
 * failed and was rolled back to its savepoint (the claim was made before the savepoint), or — `untakenOnly` — when
 * the work ended without claiming its key. The transaction then commits without it, so the next delivery claims the
 * key afresh. Nothing when this transaction inserted no row of `key`.
 * @throws whatever the driver throws (the group commit then fails the whole transaction).
 */
export async function releaseGroupClaim(ctx: SqlContext, key: RequestKey, untakenOnly: boolean): Promise<void> {
  const claim = claimsOf.get(ctx.db)?.get(keyId(key));
  if (claim === undefined || !claim.result.inserted || claim.released || (untakenOnly && claim.taken)) return;
  claim.released = true;
  await runStatement(ctx, DELETE_CLAIM, keyValues(ctx, key));
}
