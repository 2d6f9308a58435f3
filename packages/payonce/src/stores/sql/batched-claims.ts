import { firstClaimReceipt } from '../../core/receipt.js';
import type { InsertClaimRequest, InsertClaimResult } from '../../core/store.js';
import { type BatchStatements, type ClaimRow, inKeyOrder, keyId } from './batch-statements.js';
import type { BatchEntry } from './batcher.js';
import { isStatementError } from './driver-error.js';
import { insertClaim } from './insert-claim.js';
import { type SqlContext, statement } from './sql-context.js';

type ClaimEntry = BatchEntry<InsertClaimRequest, InsertClaimResult>;

/** Multi-row insert-then-read rounds before the rows still unsettled fall back to the single-row claim. */
const MAX_ROUNDS = 3;

/** The single-row claim of `entry` (its own statement, retried as usual), settling it. */
async function claimAlone(ctx: SqlContext, entry: ClaimEntry): Promise<void> {
  try {
    entry.resolve(await insertClaim(ctx, entry.item));
  } catch (error) {
    entry.reject(error);
  }
}

/**
 * Multi-row rounds for `leaders` (distinct keys, sorted): insert those not yet settled, read back the ones that
 * existed, and insert again those that vanished in between (purged). Settles every leader it decides; returns the
 * leaders still undecided after `MAX_ROUNDS`.
 */
async function claimRounds(
  ctx: SqlContext,
  statements: BatchStatements,
  leaders: readonly ClaimEntry[],
): Promise<ClaimEntry[]> {
  let pending = [...leaders];
  for (let round = 0; round < MAX_ROUNDS && pending.length > 1; round++) {
    const rows: ClaimRow[] = pending.map((entry) => entry.item);
    const inserted = await statement(ctx, () => statements.insertClaims(ctx, rows));
    const existing: ClaimEntry[] = [];
    for (const entry of pending) {
      const { key, nowMs, fingerprint } = entry.item;
      if (inserted !== 'none' && inserted.has(keyId(key))) {
        entry.resolve({ inserted: true, receipt: firstClaimReceipt(key, nowMs, fingerprint) });
      } else {
        existing.push(entry);
      }
    }
    if (existing.length === 0) return [];
    const found = await statement(ctx, () =>
      statements.findReceipts(
        ctx,
        existing.map((entry) => entry.item.key),
      ),
    );
    pending = [];
    for (const entry of existing) {
      const receipt = found.get(keyId(entry.item.key));
      if (receipt) entry.resolve({ inserted: false, receipt });
      else pending.push(entry);
    }
  }
  return pending;
}

/**
 * Runs one batch of claims (`Batcher` runner): the first call of each key is a leader and goes into the multi-row
 * statement; a later call of the same key (a duplicate inside the batch) waits for it and then sees the leader's
 * receipt exactly as a caller that lost the race would — the in-flight claim when the leader inserted it, or the row
 * that already existed. A batch of one key uses the single-row statement. When the multi-row statement fails for
 * its data (`isStatementError`: one bad row), every leader is claimed again alone so only the bad row fails; any
 * other error (connection lost) rejects every caller of the batch with the driver error.
 * @see docs/design.md §3 "Batched claims and completions".
 */
export async function runClaimBatch(
  ctx: SqlContext,
  statements: BatchStatements,
  entries: readonly ClaimEntry[],
): Promise<void> {
  const leaders = new Map<string, ClaimEntry>();
  const followers: { entry: ClaimEntry; leader: ClaimEntry }[] = [];
  for (const entry of entries) {
    const id = keyId(entry.item.key);
    const leader = leaders.get(id);
    if (leader) followers.push({ entry, leader });
    else leaders.set(id, entry);
  }
  const outcomes = new Map<ClaimEntry, Promise<InsertClaimResult>>();
  const settled = new Set<ClaimEntry>();
  const tracked = inKeyOrder(leaders).map((leader): ClaimEntry => {
    let resolve!: (result: InsertClaimResult) => void;
    let reject!: (error: unknown) => void;
    const outcome = new Promise<InsertClaimResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    outcome.catch(() => {});
    outcomes.set(leader, outcome);
    const entry: ClaimEntry = {
      item: leader.item,
      resolve: (result) => {
        settled.add(entry);
        resolve(result);
        leader.resolve(result);
      },
      reject: (error) => {
        settled.add(entry);
        reject(error);
        leader.reject(error);
      },
    };
    return entry;
  });
  await claimLeaders(ctx, statements, tracked, (entry) => settled.has(entry));
  await Promise.all(
    followers.map(async ({ entry, leader }) => {
      try {
        const { receipt } = await outcomes.get(leader)!;
        entry.resolve({ inserted: false, receipt });
      } catch (error) {
        // The leader's own row was bad: this caller's request may differ (its fingerprint, its time), so it tries
        // alone; a lost connection fails it like every caller of the batch.
        if (isStatementError(error)) await claimAlone(ctx, entry);
        else entry.reject(error);
      }
    }),
  );
}

/** The leaders' claims: multi-row rounds, then row by row for what they left unsettled (a bad row, or a purge). */
async function claimLeaders(
  ctx: SqlContext,
  statements: BatchStatements,
  leaders: ClaimEntry[],
  isSettled: (entry: ClaimEntry) => boolean,
): Promise<void> {
  if (leaders.length === 1) return claimAlone(ctx, leaders[0]!);
  let rest: ClaimEntry[];
  try {
    rest = await claimRounds(ctx, statements, leaders);
  } catch (error) {
    if (!isStatementError(error)) {
      for (const leader of leaders) if (!isSettled(leader)) leader.reject(error);
      return;
    }
    rest = leaders;
  }
  await Promise.all(rest.filter((leader) => !isSettled(leader)).map((leader) => claimAlone(ctx, leader)));
}
