import type { CompiledQuery, Kysely } from 'kysely';
import { executeCompiled } from './transaction-connection.js';

/** A write a caller of a group transaction left for its end (`writeBeforeCommit`). */
export interface DeferredWrite {
  readonly query: CompiledQuery;
  /** The write must touch a row: one that touches none fails the batch (`DeferredWritesFailed`). */
  readonly mustTouch: boolean;
}

/** The writes callers of a group transaction left for its end (`writeBeforeCommit`), by transaction. */
export const beforeCommit = new WeakMap<object, DeferredWrite[]>();

/**
 * Makes `query` — an insert nothing later in the transaction reads, such as a delivery's journal row — in `tx`: in
 * a transaction a `GroupCommit` runs, it is sent just before the commit with the other callers' such writes,
 * as ONE statement on PostgreSQL (a statement a caller instead of one each); a caller whose work fails drops its own
 * (its savepoint's writes). Anywhere else it is sent now. Either way it commits with the caller's other writes or
 * not at all.
 * @throws whatever the driver throws, when sent now; at the commit, a failure fails the batch (see `GroupCommit`).
 */
export async function writeBeforeCommit<DB>(
  tx: Kysely<DB>,
  query: CompiledQuery,
  options: { readonly mustTouch?: boolean } = {},
): Promise<void> {
  const pending = beforeCommit.get(tx);
  if (pending === undefined) await executeCompiled(tx, query);
  else pending.push({ query, mustTouch: options.mustTouch === true });
}
