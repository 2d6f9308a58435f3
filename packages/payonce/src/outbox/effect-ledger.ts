import type { Transaction } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import { tablesIn, tablesOf } from '../stores/sql/table-namespace.js';
import { insertUnlessDuplicate } from './insert-unless-duplicate.js';
import { EFFECTS_TABLE, type OutboxDatabase } from './outbox-tables.js';
import { type SqlTarget, transaction } from './sql-transaction.js';

/** What `runEffectOnce` did: ran the effect now (with its value), or found the effect key already recorded. */
export type EffectResult<T> =
  | { readonly kind: 'applied'; readonly value: T }
  | { readonly kind: 'already-applied'; readonly effectKey: string };

/** Options of `runEffectOnce`. */
export interface EffectOptions {
  /** The outbox job performing the effect, stored beside the key for "who did this?". */
  readonly jobId?: string | null;
  /** Epoch ms UTC stored as the effect's time. @default Date.now() */
  readonly nowMs?: number;
}

/**
 * The effect ledger of docs/design.md §7: in ONE transaction, records `effectKey` in `payonce_effects` (unique) and runs
 * `effect(trx)` — so the effect's own writes and its key commit together or not at all. If the key is already
 * recorded, `effect` is not run. A re-run job, a redelivered message or a second worker therefore never repeats
 * the effect, however long finished outbox jobs are kept. Concurrent callers with one key serialise on the
 * unique index. `effect` must only write to this database (it may be retried after a deadlock).
 * @throws {InvalidOption} empty `effectKey` or longer than 200 characters.
 * @throws whatever `effect` throws, after the rollback (the key is not recorded).
 * @see docs/design.md §7 "Effect ledger"; issue 5 "effect ledger".
 * @example await runEffectOnce(store, `fulfil:${orderId}`, (trx) => grantAccess(trx, orderId));
 */
export async function runEffectOnce<DB, T>(
  target: SqlTarget<DB>,
  effectKey: string,
  effect: (trx: Transaction<DB>) => Promise<T>,
  options: EffectOptions = {},
): Promise<EffectResult<T>> {
  if (typeof effectKey !== 'string' || effectKey.length === 0 || effectKey.length > 200) {
    throw new InvalidOption('effectKey', 'must be a non-empty string of at most 200 characters');
  }
  return transaction(target, async (trx) => {
    const first = await insertUnlessDuplicate(
      target.dialect,
      tablesIn<OutboxDatabase>(target, trx)
        .insertInto(EFFECTS_TABLE)
        .values({
          effect_key: effectKey,
          job_id: options.jobId ?? null,
          created_at: options.nowMs ?? Date.now(),
        }),
    );
    if (!first) return Object.freeze({ kind: 'already-applied', effectKey });
    return Object.freeze({ kind: 'applied', value: await effect(trx) });
  });
}

/** True when `effectKey` is recorded in the ledger (committed). */
export async function effectApplied<DB>(target: SqlTarget<DB>, effectKey: string): Promise<boolean> {
  const row = await tablesOf<OutboxDatabase>(target)
    .selectFrom(EFFECTS_TABLE)
    .select('effect_key')
    .where('effect_key', '=', effectKey)
    .executeTakeFirst();
  return row !== undefined;
}
