import { type ClaimStep, decideClaim } from './claim-decision.js';
import { ClaimRunner } from './claim-runner.js';
import { PayloadMismatch, ReceiptCorrupted, RequestInProgress, TransactionsUnsupported } from './errors.js';
import { GuardEmitter, type GuardEventName, type GuardListener } from './guard-events.js';
import { StoreFailures } from './guard-failures.js';
import { asKey, checkHandler, cutoffOf, epochMs, fingerprintOf } from './guard-input.js';
import { type GuardOptions, type ResolvedGuardOptions, resolveGuardOptions } from './guard-options.js';
import { claimEnded, type GuardNote, observeGuarded, observeTakeover, observeWait } from './guard-telemetry.js';
import type { ClaimContext, Handler, PurgeOptions, RunOptions, TransactionHandler } from './guard-types.js';
import { assertNotHeld } from './held-claims.js';
import { waitForFinish } from './in-flight-wait.js';
import { MAX_TIMER_MS, nonNegativeInt } from './options.js';
import type { Outcome } from './outcome.js';
import type { Receipt } from './receipt.js';
import { RequestKey } from './request-key.js';
import type { InsertClaimResult, Store, TransactionalStore, TransactionOf } from './store.js';

export type {
  ClaimContext,
  Handler,
  HandlerResult,
  PurgeOptions,
  RunOptions,
  TransactionHandler,
} from './guard-types.js';

type ClaimDecision =
  | { readonly kind: 'claimed'; readonly receipt: Receipt; readonly takeover: boolean; readonly retry: boolean }
  | { readonly kind: 'replay'; readonly receipt: Receipt };

/** The in-flight wait of one call: the real-time deadline (`performance.now()` ms; 0 = no wait) and its signal. */
interface InFlightWait {
  readonly untilMs: number;
  readonly signal: AbortSignal | undefined;
}

/** The wait of a call that never waits (no budget, no signal): one shared object instead of one per call. */
const NO_WAIT: InFlightWait = Object.freeze({ untilMs: 0, signal: undefined });

/** Compare-and-set rounds before a contended key is reported as in progress. */
const MAX_CLAIM_ROUNDS = 8;

/**
 * Runs a handler at most once to completion per `RequestKey`, however many deliveries arrive, sequentially
 * or in parallel, across processes that share the store. A completed key replays the stored response byte
 * for byte; a failed one runs again on the next delivery. A claim is a lease renewed by a heartbeat while its
 * handler runs (`leaseMs`, `heartbeatMs`): a claim whose heartbeat stopped for `leaseMs` (its worker died) is taken
 * over by compare-and-set on its attempt count, and the old owner, should it resume, can neither complete nor fail it.
 *
 * @see docs/design.md §3; seed 004 (receipt lifecycle, stale takeover).
 * @example
 * const guard = new IdempotencyGuard(new MemoryStore());
 * const { response, isReplay } = await guard.run(new RequestKey('stripe', event.id), async () => {
 *   await markOrderPaid(event.data.object.metadata.order_id);
 *   return { status: 200, body: '{"received":true}' };
 * });
 */
export class IdempotencyGuard<S extends Store = Store> {
  readonly store: S;
  readonly options: ResolvedGuardOptions;
  private readonly events = new GuardEmitter();
  private readonly failures = new StoreFailures(this.events);
  private readonly runner: ClaimRunner;

  /** @throws {InvalidOption} for a lease of 0, negative, fractional or non-finite ms, or another bad option. */
  constructor(store: S, options: GuardOptions = {}) {
    this.store = store;
    this.options = resolveGuardOptions(options);
    this.runner = new ClaimRunner({
      guardStore: store,
      options: this.options,
      events: this.events,
      failures: this.failures,
      now: () => this.now(),
    });
  }

  /** Subscribes to a guard event (see `GuardEvents`); returns an unsubscribe function. */
  on<E extends GuardEventName>(name: E, listener: GuardListener<E>): () => void {
    return this.events.on(name, listener);
  }

  /**
   * Claims `key` and runs `handler` once; later deliveries get the stored response with `isReplay: true`.
   * @throws {InvalidRequestKey} for an invalid key, before any store call.
   * @throws {InvalidOption} `handler` not a function, `options` not an object, a `payload` that is neither bytes
   *   nor a string, a malformed `fingerprint` — before any store call.
   * @throws {RequestInProgress} a claim whose lease has not expired is held elsewhere (HTTP 409); `retryAfterMs`
   *   is the lease's remaining time, at most `maxRetryAfterMs`.
   * @throws {PayloadMismatch} the key was first claimed with a different payload fingerprint (HTTP 422).
   * @throws {ReceiptCorrupted} a fingerprint is given but the stored receipt's is NULL or empty (HTTP 500).
   * @throws {ClaimLost} the handler finished after its claim was taken over (its lease expired: no heartbeat for
   *   `leaseMs`) or a heartbeat was refused; its result was not stored.
   * @throws {StoreUnavailable} the store failed; the driver error is the `cause`.
   * @throws {NestedClaim} `key` is the key the running handler (this call chain) already holds; nothing is claimed
   *   (where `GuardOptions.detectNestedClaims` checks: by default always, except around a plain `run` of a guard
   *   that never waits in production on Node.js < 24).
   * @throws whatever `handler` throws, after the receipt is marked `failed` with the bounded error text.
   * @throws {InvalidOption} the handler returned a response that cannot be stored (`toStoredResponse`); the
   *   receipt is marked `failed` as for a throw, so the next delivery runs the handler again.
   */
  async run(key: RequestKey, handler: Handler, options: RunOptions = {}): Promise<Outcome> {
    const checked = this.notHeld(asKey(key));
    checkHandler(handler);
    const [fingerprint, wait] = [fingerprintOf(options), this.waitOf(options)];
    return await observeGuarded(checked, this.store.name, this.options.requireParentSpan, async (note) => {
      const decision = await this.claim(this.store, checked, fingerprint, wait, note);
      claimEnded(note, decision);
      if (decision.kind === 'replay') return this.replay(decision.receipt);
      // Awaited, not returned: an async function that returns a promise settles two microtask turns later.
      const invoke = () => handler(this.contextOf(decision));
      return await this.runner.execute(this.store, decision.receipt, invoke, false, this.tracksHeld(false), note);
    });
  }

  /**
   * Like `run`, but every statement runs in the caller's open transaction `tx` (SQL stores only): the
   * receipt and the handler's business writes commit or roll back together, with one commit per delivery.
   * A handler that throws leaves no `failed` row (the caller's rollback removes the claim); the error is
   * rethrown. Concurrent transactions with one key serialise on the unique index: one business write commits.
   * @throws {TransactionsUnsupported} the store cannot join a transaction (memory, Redis).
   * @throws {NestedClaim} `key` is held by the running handler (e.g. the intake's own event key); see
   *   `GuardOptions.detectNestedClaims` for where it is checked.
   * @throws the same errors as `run`.
   */
  async runInTransaction<T extends TransactionOf<S>>(
    tx: T,
    key: RequestKey,
    handler: TransactionHandler<T>,
    options: RunOptions = {},
  ): Promise<Outcome> {
    const checked = this.notHeld(asKey(key));
    checkHandler(handler);
    const store = this.transactionalView(tx);
    const [fingerprint, wait] = [fingerprintOf(options), this.waitOf(options)];
    return await observeGuarded(checked, this.store.name, this.options.requireParentSpan, async (note) => {
      const decision = await this.claim(store, checked, fingerprint, wait, note);
      claimEnded(note, decision);
      if (decision.kind === 'replay') return this.replay(decision.receipt);
      const invoke = () => handler(tx, this.contextOf(decision));
      return await this.runner.execute(store, decision.receipt, invoke, true, this.tracksHeld(true), note);
    });
  }

  /**
   * The one-commit mode: opens ONE new transaction on the store's database (`store.transaction`), claims `key`
   * in it, runs `handler(tx, claim)` there, completes the receipt and commits once, so the receipt and the
   * handler's business writes are durable together or not at all. A handler that throws (or a process that dies
   * before the commit) leaves no receipt and no business write, and the next delivery runs it again. A completed
   * key replays its stored response; concurrent copies of one key serialise on the receipt's primary key and the
   * later ones replay the first one's committed response. After a transient error (deadlock, SQLITE_BUSY) the
   * whole transaction runs again, so `handler` must only write through `tx` (no network calls).
   * @throws {TransactionsUnsupported} the store cannot open a transaction (memory, Redis).
   * @throws {NestedClaim} `key` is held by the running handler (see `GuardOptions.detectNestedClaims`).
   * @throws {StoreUnavailable} opening or committing the transaction failed (the commit's outcome is unknown:
   *   deliver again; the receipt decides).
   * @throws the same errors as `runInTransaction`, and whatever `handler` throws (after the rollback).
   * @see docs/design.md §3 "Transactional mode"; docs/webhook-handlers.md.
   * @example
   * await guard.runInNewTransaction(new RequestKey('stripe', event.id), async (tx) => {
   *   await tx.insertInto('credits').values({ invoice: invoice.id, amount: invoice.amount_paid }).execute();
   * });
   */
  async runInNewTransaction(
    key: RequestKey,
    handler: TransactionHandler<TransactionOf<S>>,
    options: RunOptions = {},
  ): Promise<Outcome> {
    const checked = this.notHeld(asKey(key));
    checkHandler(handler);
    const store = this.transactionalStore();
    fingerprintOf(options); // a bad fingerprint option fails before any transaction opens
    let thrown: { readonly error: unknown } | null = null;
    try {
      return await store.transaction(async (tx) => {
        thrown = null;
        try {
          return await this.runInTransaction(tx as TransactionOf<S>, checked, handler, options);
        } catch (error) {
          thrown = { error };
          throw error;
        }
      });
    } catch (error) {
      // The handler's and the claim's own errors pass as they are; BEGIN or COMMIT failing is the store's.
      if (thrown !== null && (thrown as { readonly error: unknown }).error === error) throw error;
      throw this.failures.of('transaction', error, store);
    }
  }

  /**
   * The store as a transactional store (it can open and join transactions).
   * @throws {TransactionsUnsupported} memory and Redis stores; adapters call it at construction to refuse a
   *   one-commit mode they could never honour.
   */
  transactionalStore(): TransactionalStore<TransactionOf<S>> {
    const store = this.store as Store & Partial<TransactionalStore<TransactionOf<S>>>;
    if (
      !store.supportsTransactions ||
      typeof store.withTransaction !== 'function' ||
      typeof store.transaction !== 'function'
    ) {
      throw new TransactionsUnsupported(store.name);
    }
    return store as TransactionalStore<TransactionOf<S>>;
  }

  /** True when `key` has a `completed` receipt. Makes no claim; for dashboards and logs, not instead of `run`. */
  async alreadyHandled(key: RequestKey): Promise<boolean> {
    const receipt = await this.find(key);
    return receipt?.status === 'completed';
  }

  /** The stored receipt of `key`, or `null`. Makes no claim. @throws {StoreUnavailable} */
  async find(key: RequestKey): Promise<Receipt | null> {
    const checked = asKey(key);
    return this.failures.call('find', this.store, () => this.store.find(checked));
  }

  /**
   * Deletes finished (`completed` or `failed`) receipts that finished before the cut-off, and abandoned claims
   * (`processing` whose last heartbeat is before the cut-off and whose lease has expired: their worker died and the
   * key never came back), in batches of `purgeBatchSize`, and returns how many were deleted. A claim whose lease
   * still runs is never deleted (a live one renews it every `heartbeatMs`). With
   * `provider`, only that provider's receipts are deleted: pass it whenever the store is shared, or one
   * retention (say the HTTP layer's 24 h) deletes receipts a provider still redelivers (Stripe: up to 3 days).
   * Keep retention longer than the provider's redelivery schedule, or a late redelivery looks new.
   * @throws {InvalidOption} for a negative or non-finite age.
   * @throws {InvalidRequestKey} for a `provider` that is not a valid `RequestKey` provider, before any store call.
   * @throws {StoreUnavailable}
   * @see docs/design.md §3 "Purge".
   * @example await guard.purge({ olderThan: 7 * 86_400_000, provider: 'stripe' });
   */
  async purge(options: PurgeOptions): Promise<number> {
    const beforeMs = cutoffOf(options.olderThan, this.now());
    // Validates the provider exactly as a RequestKey does (non-empty, ≤ 160 characters, no NUL).
    const provider = options.provider === undefined ? undefined : new RequestKey(options.provider, '-').provider;
    // An abandoned claim goes only once its lease has expired too: a live claim renews `claimedAtMs` every beat.
    const abandonedBeforeMs = Math.min(beforeMs, this.now() - this.options.leaseMs);
    let total = 0;
    for (;;) {
      const deleted = await this.failures.call('purge', this.store, () =>
        this.store.purgeBatch(beforeMs, this.options.purgeBatchSize, provider, abandonedBeforeMs),
      );
      total += deleted;
      if (deleted < this.options.purgeBatchSize) return total;
    }
  }

  /** The clock's time as whole epoch ms. @throws {InvalidOption} if the clock returns a non-number, NaN or < 0. */
  private now(): number {
    return epochMs(this.options.clock.now());
  }

  /** `key`, unless the running handler chain already holds it on this store. @throws {NestedClaim} */
  private notHeld(key: RequestKey): RequestKey {
    if (this.options.nestedClaimDetection !== 'off') assertNotHeld(this.store, key);
    return key;
  }

  /** Whether the handler of a claim runs with its key in the held claims (`GuardOptions.detectNestedClaims`). */
  private tracksHeld(transactional: boolean): boolean {
    const mode = this.options.nestedClaimDetection;
    if (mode !== 'waiting-or-transactional') return mode === 'everywhere';
    return transactional || this.options.waitForInFlightMs > 0;
  }

  private transactionalView(tx: TransactionOf<S>): Store {
    const store = this.store as Store & { withTransaction?: (tx: unknown) => Store };
    if (!store.supportsTransactions || typeof store.withTransaction !== 'function') {
      throw new TransactionsUnsupported(store.name);
    }
    return store.withTransaction(tx);
  }

  private contextOf(decision: ClaimDecision & { kind: 'claimed' }): ClaimContext {
    const { receipt, takeover, retry } = decision;
    return Object.freeze({ key: receipt.key, attempt: receipt.attempts, takeover, retry });
  }

  /** The wait of one call: its budget (per call, else the guard's) and its signal. @throws {InvalidOption} */
  private waitOf(options: RunOptions): InFlightWait {
    const budgetMs =
      options.waitForInFlightMs === undefined
        ? this.options.waitForInFlightMs
        : nonNegativeInt('waitForInFlightMs', options.waitForInFlightMs, MAX_TIMER_MS);
    if (budgetMs <= 0 && options.signal === undefined) return NO_WAIT;
    return { untilMs: budgetMs > 0 ? performance.now() + budgetMs : 0, signal: options.signal };
  }

  /**
   * Waits (bounded by the call's budget and the lease left) for the fresh claim `existing` held elsewhere to
   * finish. True when the receipt changed and the caller should claim again; false when it should answer
   * `RequestInProgress` (no budget, budget spent, or the caller's signal aborted).
   */
  private async awaitInFlight(
    key: RequestKey,
    existing: Receipt,
    leaseLeftMs: number,
    wait: InFlightWait,
    note: GuardNote,
  ) {
    const budgetMs = Math.min(wait.untilMs - performance.now(), leaseLeftMs);
    if (wait.untilMs === 0 || budgetMs <= 0 || wait.signal?.aborted) return false;
    // Read through the guard's own store, never a caller's transaction: its snapshot may never see the finish.
    const waitedFrom = performance.now();
    const pollMaxMs = this.options.waitPollMaxMs;
    const end = await observeWait(note, key, () =>
      waitForFinish({ store: this.store, key, seen: existing, budgetMs, pollMaxMs, signal: wait.signal }),
    );
    if (this.events.has('receipt:waited')) {
      this.events.emit('receipt:waited', { key, waitedMs: performance.now() - waitedFrom, end });
    }
    return end === 'changed' || (end === 'timeout' && budgetMs >= leaseLeftMs);
  }

  /**
   * The claim protocol of docs/design.md §3: insert, else replay / retry failed / take over stale / wait for or
   * report in progress.
   */
  private async claim(
    store: Store,
    key: RequestKey,
    fingerprint: string | null,
    wait: InFlightWait,
    note: GuardNote,
  ): Promise<ClaimDecision> {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const nowMs = this.now();
      let inserted: InsertClaimResult;
      try {
        inserted = await store.insertClaim({ key, nowMs, fingerprint });
      } catch (error) {
        throw this.failures.of('claim', error, store);
      }
      if (inserted.inserted) return this.claimed(inserted.receipt, false, false, note);
      const existing = inserted.receipt;
      const step = decideClaim(existing, { nowMs, fingerprint, leaseMs: this.options.leaseMs });
      if (step.kind === 'replay') return { kind: 'replay', receipt: existing };
      if (step.kind === 'in-flight') {
        const changed = await this.awaitInFlight(key, existing, step.leaseLeftMs, wait, note);
        if (!changed) throw this.inProgress(key, step.leaseLeftMs);
        // The claim finished, moved or went stale while we waited: claim again (a wait is not a lost round).
        round--;
        continue;
      }
      if (step.kind !== 'take') throw this.refusal(existing, step);
      const { expectedStatus, expectedAttempts } = step;
      const taken = await observeTakeover(note, step.takeover, () =>
        this.failures.call('takeover', store, () => store.takeover({ key, expectedStatus, expectedAttempts, nowMs })),
      );
      if (taken) return this.claimed(taken, step.takeover, step.retry, note);
      // Another worker changed the receipt between our read and our compare-and-set: look again.
    }
    throw this.inProgress(key, this.options.maxRetryAfterMs);
  }

  /**
   * The error for a receipt the caller's fingerprint cannot be matched with, after its event: a different stored
   * fingerprint, or none (NULL or empty: the row was not written by a claim with a fingerprint, so neither a replay
   * nor a mismatch would be true).
   */
  private refusal(
    existing: Receipt,
    step: ClaimStep & { kind: 'mismatch' | 'corrupted' },
  ): PayloadMismatch | ReceiptCorrupted {
    const { key } = existing;
    if (step.kind === 'corrupted') {
      this.events.emit('receipt:corrupted', { key, problem: step.problem });
      return new ReceiptCorrupted(key, step.problem);
    }
    this.events.emit('receipt:payload-mismatch', { key });
    return new PayloadMismatch(key, step.stored, step.given);
  }

  // Events are built only when someone listens (`events.has`): most deliveries have no observer.
  private claimed(receipt: Receipt, takeover: boolean, retry: boolean, note: GuardNote): ClaimDecision {
    note.takeover = takeover;
    if (this.events.has('receipt:claimed')) {
      this.events.emit('receipt:claimed', { key: receipt.key, attempt: receipt.attempts, takeover, retry });
    }
    return { kind: 'claimed', receipt, takeover, retry };
  }

  private inProgress(key: RequestKey, leaseLeftMs: number): RequestInProgress {
    const retryAfterMs = Math.max(1, Math.min(leaseLeftMs, this.options.maxRetryAfterMs));
    if (this.events.has('receipt:in-progress')) this.events.emit('receipt:in-progress', { key, retryAfterMs });
    return new RequestInProgress(key, retryAfterMs);
  }

  private replay(receipt: Receipt): Outcome {
    if (this.events.has('receipt:replayed')) {
      const ageMs = receipt.finishedAtMs === null ? 0 : this.now() - receipt.finishedAtMs;
      this.events.emit('receipt:replayed', { key: receipt.key, ageMs });
    }
    // A completed receipt always carries its response; the stores guarantee it.
    return Object.freeze({ response: receipt.response!, isReplay: true, attempts: receipt.attempts, receipt });
  }
}
