import type { Kysely, QueryExecutor, Transaction } from 'kysely';

/**
 * What a caller's work will read, for its group-commit batch to read it ahead, before the works run
 * (`GroupCommit.run`): the callers of one batch with the same `group` are read together, by the first one's `read`
 * with each one's `item` in arrival order — for example the orders and attempts a batch of provider events will be
 * applied to (`Payments.prelockProviderEvents`). `read` runs in the batch's transaction and must not write.
 */
export interface ReadAhead<DB> {
  readonly group: object;
  readonly read: (tx: Transaction<DB>, items: readonly unknown[]) => Promise<unknown>;
  readonly item: unknown;
}

/**
 * Runs the reads ahead of one batch's callers (`aheads`, `null` for a caller that gave none), once per group of two
 * or more: for a group of one, the read would cost its work what the work's own reads cost.
 * @throws whatever a `read` throws.
 */
export async function readAheadTogether<DB>(
  tx: Transaction<DB>,
  aheads: readonly (ReadAhead<unknown> | null)[],
): Promise<void> {
  const groups = new Map<object, ReadAhead<unknown>[]>();
  for (const ahead of aheads) {
    if (ahead === null) continue;
    const group = groups.get(ahead.group);
    if (group === undefined) groups.set(ahead.group, [ahead]);
    else group.push(ahead);
  }
  for (const group of groups.values()) {
    if (group.length >= 2)
      await group[0]!.read(
        tx as Transaction<unknown>,
        group.map((ahead) => ahead.item),
      );
  }
}

/** What to drop when a transaction is rolled back to a savepoint, by the transaction's executor. */
const onRollback = new WeakMap<QueryExecutor, (() => void)[]>();

/**
 * Registers `forget`, to be called when payonce rolls `tx` back to a savepoint ({@link rolledBackToSavepoint}): a
 * rollback to a savepoint releases the row locks taken after it, so what was read under them may no longer stand.
 */
export function forgetOnRollback<DB>(tx: Kysely<DB>, forget: () => void): void {
  const executor = tx.getExecutor();
  const registered = onRollback.get(executor);
  if (registered === undefined) onRollback.set(executor, [forget]);
  else registered.push(forget);
}

/** Calls (once) what {@link forgetOnRollback} registered for `tx`: payonce just rolled it back to a savepoint. */
export function rolledBackToSavepoint<DB>(tx: Kysely<DB>): void {
  const executor = tx.getExecutor();
  const registered = onRollback.get(executor);
  onRollback.delete(executor);
  for (const forget of registered ?? []) forget();
}
