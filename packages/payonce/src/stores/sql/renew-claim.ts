import type { FinishRequest } from '../../core/store.js';
import { claimHeld } from './claim-held.js';
import { defineStatement } from './compiled-statement.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** The heartbeat UPDATE: `claimed_at = now`, fenced by status `processing` and the attempt. */
const RENEW_CLAIM = defineStatement(['provider', 'externalId', 'attempt', 'nowMs'], (db, p) =>
  db.updateTable(RECEIPTS_TABLE).set({ claimed_at: p.nowMs }).$call(claimHeld(p)),
);

/**
 * The heartbeat of a running claim: moves `claimed_at` to `nowMs` (Unix epoch ms) only if the row is still
 * `processing` at `attempt`, so the claim's lease runs again from now. False when the claim was lost (taken over,
 * finished, purged). No new column: a lease is `claimed_at + leaseMs`, so rows stored before leases work as they are.
 * @see `Store.renewClaim`; docs/design.md §3 "Leases and heartbeats".
 */
export async function renewClaim(ctx: SqlContext, request: FinishRequest): Promise<boolean> {
  const { key, attempt, nowMs } = request;
  const { provider, externalId } = keyValues(ctx, key);
  const result = await runStatement(ctx, RENEW_CLAIM, { provider, externalId, attempt, nowMs });
  return (result.numAffectedRows ?? 0n) > 0n;
}
