import { AsyncResource } from 'node:async_hooks';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { storeError } from '../../core/guard-failures.js';
import type { InsertClaimRequest } from '../../core/store.js';
import { type BatchEntry, Batcher, BatchSlots } from './batcher.js';
import { beforeCommit } from './before-commit.js';
import { aloneFailure, DeferredWritesFailed, leftAborted, ShareFailed } from './group-commit-failures.js';
import { type GroupCommitOptions, resolveGroupCommit } from './group-commit-options.js';
import { type HeldWrites, heldWritesOf, holdingWrites } from './held-writes.js';
import { type ReadAhead, readAheadTogether, rolledBackToSavepoint } from './read-ahead.js';
import { splitRepeatedKeys } from './repeated-keys.js';
import type { SqlDialect } from './sql-dialect.js';
import { executeCompiled, together } from './transaction-connection.js';

/** One caller's share of a group transaction: its writes (in its own savepoint when the batch runs with them). */
export type GroupWork<DB, T> = (tx: Transaction<DB>) => Promise<T>;

/** The part of a SQL store (`SqlStore`) a group commit needs: its transactions and its dialect. */
export interface GroupCommitStore<DB> {
  readonly dialect: SqlDialect;
  /** One new transaction, retried whole after a transient error (`SqlStore.transaction`). */
  transaction<T>(work: (tx: Transaction<DB>) => Promise<T>): Promise<T>;
  /**
   * Claims the receipts of a batch's callers in `tx` in one statement before they run (`SqlStore.claimTogether`);
   * false when this store does not (its dialect has no multi-row claim in a transaction).
   */
  claimTogether?(tx: Transaction<DB>, requests: readonly InsertClaimRequest[]): Promise<boolean>;
  /**
   * Deletes the row `claimTogether` inserted for `request`'s key, after its caller's work failed or — `untakenOnly`
   * — when the work ended without claiming the key.
   */
  releaseClaim?(tx: Transaction<DB>, request: InsertClaimRequest, untakenOnly: boolean): Promise<void>;
}

/** How one caller's work ended inside the shared transaction. */
type Share =
  | { readonly kind: 'done'; readonly value: unknown }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** A transient error (deadlock, lock wait timeout) rolled its savepoint back: it runs again in its own transaction. */
  | { readonly kind: 'again' };

type AnyWork = GroupWork<unknown, unknown>;

/** One caller of a group commit: its work, and the receipt claim its work starts with, when it said so. */
interface GroupItem {
  readonly work: AnyWork;
  readonly claim: InsertClaimRequest | null;
  readonly ahead: ReadAhead<unknown> | null;
}

type GroupEntry = BatchEntry<GroupItem, unknown>;

/**
 * One savepoint name for every caller, never released (a `RELEASE` would cost each caller a round trip): PostgreSQL
 * and SQLite nest a savepoint of a name already in use inside the earlier one, MySQL/MariaDB replace it, and in every
 * case `ROLLBACK TO` rolls back to the newest one, this caller's, and the commit keeps them all.
 */
const SAVEPOINT = CompiledQuery.raw('savepoint payonce_share');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint payonce_share');

/** A statement ends the whole check, so a work that left its transaction aborted is found before the commit. */
const PROBE = CompiledQuery.raw('select 1');

/**
 * Group commit of whole units of work (issue #40): concurrent calls of `run` share ONE transaction of the store
 * and ONE commit, the callers' works run one after another on the transaction's connection. A batch runs first with
 * no savepoints; when a work throws, the transaction is rolled back whole and the batch runs again with each work in
 * its own savepoint, where a work that throws is rolled back to its savepoint (only its own writes) and its caller
 * gets its own error while the others go on (so a work may run twice: it must only write through `tx`). Every caller is answered only after the commit that carries its rows: when the commit (or the
 * connection) fails, every caller of the batch gets `StoreUnavailable` and none of its writes is durable. A
 * transient error inside one work (deadlock, lock wait timeout) rolls its savepoint back and that work runs again
 * alone, in its own transaction, after the batch; a transient error that ends the whole transaction (MySQL rolls a
 * deadlock's whole transaction back) runs the whole batch again (`SqlStore.transaction`'s retry). Batches form
 * as `Batcher` forms them: no timer, a batch of one is a plain `store.transaction(work)`. Only transactions payonce
 * opens itself go through it; a caller's own transaction is never shared. Writes the callers leave for the end
 * (`writeBeforeCommit`: their journal rows) are sent together before the commit; when that fails other than
 * transiently (a row one caller made that the database refuses) the batch is rolled back and every caller runs again
 * alone, so only the caller whose row is refused fails.
 * Each `work` runs in its caller's async context (spans, held claims), must only write through `tx` (it may run
 * again) and must not leave session state behind (`SET`).
 * @see docs/design.md §11 "Group commit".
 */
export class GroupCommit<DB> {
  private readonly batcher: Batcher<GroupItem, unknown>;
  /** The options in force, every field set. */
  readonly options: Required<GroupCommitOptions>;

  /** @throws {InvalidOption} for invalid `options` (see {@link resolveGroupCommit}). */
  constructor(
    private readonly store: GroupCommitStore<DB>,
    options?: GroupCommitOptions | true,
  ) {
    this.options = resolveGroupCommit(options, store.dialect);
    this.batcher = new Batcher<GroupItem, unknown>(
      new BatchSlots(this.options.maxConcurrentBatches),
      this.options.maxBatchSize,
      (entries) => this.runBatch(entries),
      (item) => this.alone(item.work, item.claim),
    );
  }

  /**
   * Runs `work` in a transaction shared with concurrent callers, its writes its own (a savepoint, after another caller's failure); resolves with its result
   * once that transaction committed. `claim`: the receipt claim `work` starts with (the guard's claim of its key in
   * `tx`, with this very fingerprint): on a store that can (`claimTogether`, PostgreSQL) the claims of a batch's
   * callers are made in one statement before they run, each caller's own claim is answered from it, and the
   * completion of a receipt claimed so is written with the batch's other deferred writes just before the commit. A
   * caller whose key an earlier caller of the same batch claims runs after that batch committed, and so replays its
   * stored answer. `ahead`: what `work` will read, read with the same of the batch's other callers before the works
   * run (`ReadAhead`; a read that fails runs each caller alone).
   * @throws whatever `work` throws (its writes rolled back, the others' kept).
   * @throws {StoreUnavailable} the shared transaction failed to begin or commit, or lost its connection (the commit's
   *   outcome may be unknown: deliver again, the receipts decide).
   */
  run<T>(work: GroupWork<DB, T>, claim?: InsertClaimRequest, ahead?: ReadAhead<DB>): Promise<T> {
    // Bound to the caller's async context: its spans, its held claims (`AsyncLocalStorage`), not the context of
    // whichever caller happened to start the batch.
    // (`runInAsyncScope` of a resource made here: `AsyncResource.bind` costs a `util.deprecate` wrapper per call.)
    const scope = new AsyncResource('PAYONCE_GROUP_COMMIT');
    const inScope: AnyWork = (tx) => scope.runInAsyncScope(work as AnyWork, null, tx);
    const item = { work: inScope, claim: claim ?? null, ahead: (ahead as ReadAhead<unknown> | undefined) ?? null };
    return this.batcher.submit(item) as Promise<T>;
  }

  /**
   * `work` in its own transaction, as `store.transaction` runs it; a failure of BEGIN or COMMIT is `StoreUnavailable`.
   * With `claim` (a caller alone in its batch), on a store that can, its claim is made as a batch's are
   * (`claimTogether`), so that its receipt's completion goes with its deferred writes in one statement before the
   * commit; a work that never claimed its key has that row deleted.
   */
  private async alone(work: AnyWork, claim: InsertClaimRequest | null = null): Promise<unknown> {
    let thrown: { readonly error: unknown } | null = null;
    try {
      return await this.store.transaction((tx) =>
        this.holding(tx, claim !== null, async (held) => {
          thrown = null;
          beforeCommit.set(tx, []);
          const claimed =
            claim !== null &&
            (await this.store.claimTogether?.(tx, [claim]).catch((error: unknown) => {
              throw aloneFailure('claim', error, this.transient(error));
            })) === true;
          let value: unknown;
          try {
            value = await work(tx as Transaction<unknown>);
          } catch (error) {
            // A write it held failed under a later statement: again without holding, where the write fails in place.
            if (held?.failed === true) throw new DeferredWritesFailed('a held write failed', { cause: error });
            thrown = { error };
            throw error;
          }
          if (claimed) await this.store.releaseClaim?.(tx, claim, true);
          // With nothing deferred, `select 1` finds a transaction the work left aborted, which COMMIT would roll back
          // without an error on some drivers' versions.
          await this.writeDeferred(tx, true).catch((error: unknown) => {
            throw claimed ? aloneFailure('transaction', error, this.transient(error)) : error;
          });
          return value;
        }),
      );
    } catch (error) {
      if (thrown !== null && (thrown as { readonly error: unknown }).error === error) throw error;
      // Its claim or its end write, made as a batch's, failed other than by an outage: again with the guard's own
      // claim and completion, as a batch's callers run again alone, which report their own errors.
      if (error instanceof DeferredWritesFailed && claim !== null) return this.alone(work);
      throw storeError('transaction', error);
    }
  }

  private async runBatch(all: readonly GroupEntry[]): Promise<void> {
    const { entries, later } = splitRepeatedKeys(all);
    const [lone] = entries;
    if (entries.length === 1 && lone !== undefined) {
      // Nothing to share the transaction with: no savepoint (a round trip). Its failure rolls back only its writes
      // as the savepoint would, a transient one runs it again (`store.transaction`), and it is answered after COMMIT.
      await this.alone(lone.item.work, lone.item.claim).then(lone.resolve, lone.reject);
    } else await this.shared(entries);
    // A repeated key, after the batch that claimed it committed: it replays that answer (or claims it afresh).
    for (const entry of later) await this.alone(entry.item.work).then(entry.resolve, entry.reject);
  }

  /**
   * `entries` (two or more, distinct claim keys) in one transaction. First without savepoints (a round trip and a
   * subtransaction less a delivery): when every work succeeds, that is the batch. When one fails, the transaction is
   * rolled back whole and the batch runs again with a savepoint per work (`savepoints`), where each failure stays
   * its own.
   */
  private async shared(entries: readonly GroupEntry[], savepoints = false): Promise<void> {
    let shares: Share[] = [];
    try {
      await this.store.transaction((tx) =>
        this.holding(tx, !savepoints, async (held) => {
          shares = []; // the whole batch runs again after a transient error that ended the transaction
          beforeCommit.set(tx, []);
          const claimed = await this.claimTogether(
            tx,
            entries.flatMap((entry) => (entry.item.claim === null ? [] : [entry.item.claim])),
          );
          await this.readAhead(tx, entries);
          for (const entry of entries) {
            const work = tx as Transaction<unknown>;
            shares.push(
              savepoints
                ? await this.share(work, entry.item, claimed)
                : await this.unguarded(work, entry.item, claimed, held),
            );
          }
          try {
            await this.writeDeferred(tx, true);
          } catch (error) {
            if (this.transient(error)) throw error;
            throw new DeferredWritesFailed('the deferred writes of a group transaction failed', { cause: error });
          }
        }),
      );
    } catch (caught) {
      // A work that caught a failed statement's error and went on: it is not known which, so each runs alone (where
      // that work's own next statement fails it alone).
      const error = leftAborted(caught) ? new DeferredWritesFailed('a work left the transaction aborted') : caught;
      if (error instanceof ShareFailed) {
        // Rolled back whole (ROLLBACK succeeded): nothing of the batch committed. Again, each work in its savepoint.
        await this.shared(entries, true);
        return;
      }
      if (error instanceof DeferredWritesFailed) {
        // One caller's row may be what failed: each runs again alone, so only its own delivery fails. One after
        // another, on this batch's slot: the pool is not asked for more connections than the batches hold.
        for (const entry of entries) await this.alone(entry.item.work).then(entry.resolve, entry.reject);
        return;
      }
      const failure = storeError('transaction', error);
      for (const entry of entries) entry.reject(failure);
      return;
    }
    const again: Promise<void>[] = [];
    entries.forEach((entry, i) => {
      const share = shares[i]!;
      if (share.kind === 'done') entry.resolve(share.value);
      else if (share.kind === 'failed') entry.reject(share.error);
      else again.push(this.alone(entry.item.work).then(entry.resolve, entry.reject));
    });
    await Promise.all(again);
  }

  /**
   * The batch's receipt claims (`requests`, two or more) in one statement, when the store can (`claimTogether`).
   * True when made. @throws {DeferredWritesFailed} when they fail other than transiently.
   */
  private async claimTogether(tx: Transaction<DB>, requests: readonly InsertClaimRequest[]): Promise<boolean> {
    if (requests.length < 2 || this.store.claimTogether === undefined) return false;
    try {
      return await this.store.claimTogether(tx, requests);
    } catch (error) {
      if (this.transient(error)) throw error;
      throw new DeferredWritesFailed('the claims of a group transaction failed', { cause: error });
    }
  }

  /**
   * What the batch's callers said their works will read (`ReadAhead`), read together per group of two or more, before
   * the works run. @throws {DeferredWritesFailed} when a read fails other than transiently.
   */
  private async readAhead(tx: Transaction<DB>, entries: readonly GroupEntry[]): Promise<void> {
    try {
      await readAheadTogether(
        tx,
        entries.map(({ item }) => item.ahead),
      );
    } catch (error) {
      if (this.transient(error)) throw error;
      throw new DeferredWritesFailed('the reads ahead of a group transaction failed', { cause: error });
    }
  }

  /**
   * One caller's work with no savepoint of its own; a work that never claimed its key made with the batch's
   * (`claimed`) has that row deleted. @throws {ShareFailed} when it fails, to roll the batch back.
   */
  private async unguarded(
    tx: Transaction<unknown>,
    item: GroupItem,
    claimed: boolean,
    held: HeldWrites | null,
  ): Promise<Share> {
    let value: unknown;
    try {
      value = await item.work(tx);
    } catch (error) {
      // An earlier caller's held write may be what failed under this work's statement: each runs again alone.
      if (leftAborted(error) || held?.failed === true) {
        throw new DeferredWritesFailed('a work left the transaction aborted, or a held write failed');
      }
      throw new ShareFailed('a work of a group transaction without savepoints failed');
    }
    if (claimed) await this.release(tx, item, true);
    return { kind: 'done', value };
  }

  /**
   * One caller's work in its savepoint. A savepoint statement that fails (connection lost) fails the batch. When its
   * claim was made with the batch's (`claimed`), before the savepoint, a work that fails has that row deleted too.
   */
  private async share(tx: Transaction<unknown>, item: GroupItem, claimed: boolean): Promise<Share> {
    await executeCompiled(tx, SAVEPOINT);
    const pending = beforeCommit.get(tx);
    const mark = pending?.length ?? 0;
    let value: unknown;
    try {
      value = await item.work(tx);
    } catch (error) {
      if (pending !== undefined) pending.length = mark; // its deferred writes go with its savepoint's
      const transient = this.transient(error);
      try {
        await executeCompiled(tx, ROLLBACK_TO);
        rolledBackToSavepoint(tx);
      } catch (rollbackError) {
        // The transaction itself is gone: MySQL rolls a deadlock's whole transaction back (the savepoint with it),
        // so the work's transient error runs the batch again; anything else (connection lost) fails the batch.
        throw transient ? error : rollbackError;
      }
      // Its claim row must not commit: its next delivery (or its run alone, after a transient error) claims afresh.
      if (claimed) await this.release(tx, item, false);
      return transient ? { kind: 'again' } : { kind: 'failed', error };
    }
    // A work that never claimed its key leaves no claim row behind.
    if (claimed) await this.release(tx, item, true);
    return { kind: 'done', value };
  }

  /** Deletes the row the batch's claims made for `item`'s key (`GroupCommitStore.releaseClaim`), when it gave one. */
  private async release(tx: Transaction<unknown>, item: GroupItem, untakenOnly: boolean): Promise<void> {
    if (item.claim !== null) await this.store.releaseClaim?.(tx as Transaction<DB>, item.claim, untakenOnly);
  }

  /**
   * Sends the writes the callers of `tx` deferred to its end (`writeBeforeCommit`): one statement on PostgreSQL.
   * `probe`: on PostgreSQL with nothing deferred, one `select 1` instead, so that a transaction a work left aborted
   * fails here rather than being rolled back silently by its COMMIT.
   */
  private async writeDeferred<D>(tx: Kysely<D>, probe = false): Promise<void> {
    const pending = beforeCommit.get(tx) ?? [];
    beforeCommit.delete(tx);
    const held = heldWritesOf(tx.getExecutor());
    if (probe && pending.length === 0 && held?.holding !== true && this.store.dialect.name === 'postgres') {
      await executeCompiled(tx, PROBE);
      await held?.settle();
      return;
    }
    await together(
      tx,
      this.store.dialect.name,
      pending.map(({ query, mustTouch }) => async () => {
        const result = await executeCompiled(tx, query);
        if (mustTouch && !((result.numAffectedRows ?? 0n) > 0n)) {
          throw new Error('a write deferred to the commit touched no row');
        }
      }),
      { hold: true },
    );
    // Held: they and the writes the callers held go now, as one statement, and are answered.
    await held?.settle();
  }

  /**
   * `work` in `tx` with the closing writes its callers make through `together` held until the next statement on the
   * connection or the end (`HeldWrites`, settled by `writeDeferred`), when `hold` and on PostgreSQL; else `work(null)`.
   * Held only in runs whose failure runs every caller again without holding: a batch without savepoints, a caller
   * alone with its claim made as a batch's.
   */
  private holding<T>(tx: Transaction<DB>, hold: boolean, work: (held: HeldWrites | null) => Promise<T>): Promise<T> {
    if (!hold || this.store.dialect.name !== 'postgres') return work(null);
    return holdingWrites(tx.getExecutor(), work);
  }

  /** True when `error`, or its `cause` (the guard's `StoreUnavailable`), is a transient error of the dialect. */
  private transient(error: unknown): boolean {
    const { dialect } = this.store;
    return (
      dialect.isTransientError(error) ||
      (error instanceof Error && error.cause !== undefined && dialect.isTransientError(error.cause))
    );
  }
}
