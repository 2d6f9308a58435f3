import { AsyncLocalStorage } from 'node:async_hooks';
import { ClaimHeartbeat } from './claim-heartbeat.js';
import {
  ClaimLost,
  InvalidOption,
  InvalidRequestKey,
  NestedClaim,
  PayloadMismatch,
  PayonceError,
  ReceiptCorrupted,
  RequestInProgress,
  StoreUnavailable,
  TransactionsUnsupported,
} from './errors.js';
import type { PayloadBytes } from './fingerprint.js';
import { fingerprint as sha256Fingerprint } from './fingerprint.js';
import { GuardEmitter, type GuardEventName, type GuardListener } from './guard-events.js';
import { type GuardOptions, type ResolvedGuardOptions, resolveGuardOptions, waitBudget } from './guard-options.js';
import { waitForFinish } from './in-flight-wait.js';
import type { Outcome } from './outcome.js';
import type { Receipt, StoredResponse } from './receipt.js';
import { RequestKey } from './request-key.js';
import { type ResponseInit, toStoredResponse } from './response.js';
import type { InsertClaimResult, Store, TransactionalStore, TransactionOf } from './store.js';

/** What a handler learns about the claim it runs under. */
export interface ClaimContext {
  readonly key: RequestKey;
  /** Fencing token: 1 for the first claim, higher after a retry or takeover. */
  readonly attempt: number;
  /** True when this claim took over a stale `processing` receipt (the previous worker may have done part of the work). */
  readonly takeover: boolean;
  /** True when this claim retries a `failed` receipt. */
  readonly retry: boolean;
}

/**
 * What a handler returns: the response to store (see `ResponseInit`), or nothing for an empty 200.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: lets `async () => { await work(); }` be a handler.
export type HandlerResult = Promise<ResponseInit | undefined | void> | ResponseInit | undefined | void;

/** A handler: does the work once and returns the response to store and replay. */
export type Handler = (context: ClaimContext) => HandlerResult;

/** A handler run inside the caller's transaction `tx`. */
export type TransactionHandler<Tx> = (tx: Tx, context: ClaimContext) => HandlerResult;

/** Per-call options of `run` and `runInTransaction`. */
export interface RunOptions {
  /** Raw payload bytes; their SHA-256 is stored with the first claim and compared on every later delivery. */
  payload?: PayloadBytes;
  /** A precomputed fingerprint (e.g. of method + route + body); used instead of `payload`. */
  fingerprint?: string;
  /**
   * How long (ms) this call waits for a fresh claim held elsewhere to finish before `RequestInProgress`; see
   * `GuardOptions.waitForInFlightMs`. @default the guard's `waitForInFlightMs` (0 = do not wait)
   */
  waitForInFlightMs?: number;
  /**
   * Aborting it (client gone, request cancelled) stops a wait for an in-flight claim at once: the call throws
   * `RequestInProgress`, as without a wait. It never interrupts a handler that is already running.
   */
  signal?: AbortSignal;
}

/** What `purge` deletes: receipts finished before a cut-off, optionally of one provider only. */
export interface PurgeOptions {
  /** The cut-off: a `Date` (absolute) or an age in milliseconds before now. */
  olderThan: Date | number;
  /**
   * Purge only this provider's receipts (`RequestKey.provider`, compared byte for byte); pass it whenever the
   * store is shared (HTTP keys and webhook receipts, or providers with different redelivery windows).
   * @default every provider's receipts
   */
  provider?: string;
}

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

/**
 * The claims held by the handler call chain that is running (one entry per enclosing `run`/`runInTransaction`),
 * to tell "this very chain already holds the key" (a misuse, {@link NestedClaim}) from "another worker holds it".
 * `active` turns false when the handler returns, so work it left running (a timer) is not mistaken for a nesting.
 */
interface HeldClaim {
  readonly store: Store;
  readonly slot: string;
  readonly parent: HeldClaim | undefined;
  active: boolean;
}
const heldClaims = new AsyncLocalStorage<HeldClaim>();
const slotOf = (key: RequestKey): string => `${key.provider}\u0000${key.externalId}`;

/** Compare-and-set rounds before a contended key is reported as in progress. */
const MAX_CLAIM_ROUNDS = 8;

function asKey(key: RequestKey): RequestKey {
  if (key instanceof RequestKey) return key;
  const loose: unknown = key;
  if (typeof loose !== 'object' || loose === null) throw new InvalidRequestKey('provider', 'key must be a RequestKey');
  const { provider, externalId } = loose as Partial<RequestKey>;
  return new RequestKey(provider as string, externalId as string);
}

/** Printable, storable text of anything a handler threw: never throws, no NUL (PostgreSQL text refuses it). */
function errorText(error: unknown, maxChars: number): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = '[a thrown value that cannot be converted to text]';
  }
  const clean = text.toWellFormed().replaceAll('\u0000', '\uFFFD');
  const chars = Array.from(clean);
  return chars.length <= maxChars ? clean : chars.slice(0, maxChars).join('');
}

/** `an object`, `null`, `a number`: what a wrong argument was, for messages that never echo its value. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** @throws {InvalidOption} `handler` is not a function. */
function checkHandler(handler: unknown): void {
  if (typeof handler !== 'function') throw new InvalidOption('handler', `must be a function, got ${kindOf(handler)}`);
}

/** Fingerprints are compared as given: printable ASCII, 1–128 characters (a SHA-256 hex digest is 64). */
const FINGERPRINT = /^[\x21-\x7e]{1,128}$/;

async function storeCall<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw storeError(operation, error);
  }
}

/** What a store's failure is rethrown as: a `PayonceError` as is, anything else as `StoreUnavailable`. */
function storeError(operation: string, error: unknown): unknown {
  return error instanceof PayonceError ? error : new StoreUnavailable(operation, error);
}

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

  /** @throws {InvalidOption} for a lease of 0, negative, fractional or non-finite ms, or another bad option. */
  constructor(store: S, options: GuardOptions = {}) {
    this.store = store;
    this.options = resolveGuardOptions(options);
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
    const decision = await this.claim(this.store, checked, this.fingerprintOf(options), this.waitOf(options));
    if (decision.kind === 'replay') return this.replay(decision.receipt);
    // Awaited, not returned: an async function that returns a promise settles two microtask turns later.
    return await this.execute(this.store, decision, () => handler(this.contextOf(decision)), false);
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
    const decision = await this.claim(store, checked, this.fingerprintOf(options), this.waitOf(options));
    if (decision.kind === 'replay') return this.replay(decision.receipt);
    return await this.execute(store, decision, () => handler(tx, this.contextOf(decision)), true);
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
    this.fingerprintOf(options); // a bad fingerprint option fails before any transaction opens
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
      throw storeError('transaction', error);
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
    return storeCall('find', () => this.store.find(checked));
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
    const beforeMs = this.cutoffOf(options.olderThan);
    // Validates the provider exactly as a RequestKey does (non-empty, ≤ 160 characters, no NUL).
    const provider = options.provider === undefined ? undefined : new RequestKey(options.provider, '-').provider;
    // An abandoned claim goes only once its lease has expired too: a live claim renews `claimedAtMs` every beat.
    const abandonedBeforeMs = Math.min(beforeMs, this.now() - this.options.leaseMs);
    let total = 0;
    for (;;) {
      const deleted = await storeCall('purge', () =>
        this.store.purgeBatch(beforeMs, this.options.purgeBatchSize, provider, abandonedBeforeMs),
      );
      total += deleted;
      if (deleted < this.options.purgeBatchSize) return total;
    }
  }

  private cutoffOf(olderThan: Date | number): number {
    if (olderThan instanceof Date) {
      const ms = olderThan.getTime();
      if (!Number.isFinite(ms)) throw new InvalidOption('olderThan', 'is an invalid Date');
      return Math.floor(ms);
    }
    if (typeof olderThan !== 'number' || !Number.isFinite(olderThan) || olderThan < 0) {
      throw new InvalidOption('olderThan', `must be a Date or a non-negative age in ms, got ${String(olderThan)}`);
    }
    return Math.floor(this.now() - olderThan);
  }

  /** The clock's time as whole epoch ms. @throws {InvalidOption} if the clock returns a non-number, NaN or < 0. */
  private now(): number {
    const raw = this.options.clock.now();
    const ms = Math.floor(raw);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new InvalidOption('clock', `now() must return Unix epoch milliseconds, got ${String(raw)}`);
    }
    return ms;
  }

  /** The fingerprint of `options`, checked (callers from JavaScript have no type checker). @throws {InvalidOption} */
  private fingerprintOf(options: RunOptions): string | null {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidOption('options', `must be an object { payload?, fingerprint? }, got ${kindOf(options)}`);
    }
    if (options.fingerprint !== undefined) {
      if (typeof options.fingerprint !== 'string' || !FINGERPRINT.test(options.fingerprint)) {
        throw new InvalidOption('fingerprint', 'must be 1-128 printable ASCII characters (e.g. SHA-256 hex)');
      }
      return options.fingerprint;
    }
    const { payload } = options;
    if (payload === undefined) return null;
    if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      throw new InvalidOption(
        'payload',
        `must be the raw bytes (Uint8Array, Buffer) or a string, got ${kindOf(payload)}`,
      );
    }
    return sha256Fingerprint(payload);
  }

  /** `key`, unless the running handler chain already holds it on this store. @throws {NestedClaim} */
  private notHeld(key: RequestKey): RequestKey {
    if (this.options.nestedClaimDetection === 'off') return key;
    let held = heldClaims.getStore();
    if (held === undefined) return key;
    const slot = slotOf(key);
    for (; held !== undefined; held = held.parent) {
      if (held.active && held.store === this.store && held.slot === slot) throw new NestedClaim(key);
    }
    return key;
  }

  /** Whether the handler of a claim runs with its key in the held claims (`GuardOptions.detectNestedClaims`). */
  private tracksHeld(transactional: boolean): boolean {
    const mode = this.options.nestedClaimDetection;
    if (mode !== 'waiting-or-transactional') return mode === 'everywhere';
    return transactional || this.options.waitForInFlightMs > 0;
  }

  /** The entry `key` adds to the running chain's held claims. */
  private heldClaim(key: RequestKey): HeldClaim {
    return { store: this.store, slot: slotOf(key), parent: heldClaims.getStore(), active: true };
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
        : waitBudget(options.waitForInFlightMs, 'waitForInFlightMs');
    if (budgetMs <= 0 && options.signal === undefined) return NO_WAIT;
    return { untilMs: budgetMs > 0 ? performance.now() + budgetMs : 0, signal: options.signal };
  }

  /**
   * Waits (bounded by the call's budget and the lease left) for the fresh claim `existing` held elsewhere to
   * finish. True when the receipt changed and the caller should claim again; false when it should answer
   * `RequestInProgress` (no budget, budget spent, or the caller's signal aborted).
   */
  private async awaitInFlight(key: RequestKey, existing: Receipt, leaseLeftMs: number, wait: InFlightWait) {
    const budgetMs = Math.min(wait.untilMs - performance.now(), leaseLeftMs);
    if (wait.untilMs === 0 || budgetMs <= 0 || wait.signal?.aborted) return false;
    // Read through the guard's own store, never a caller's transaction: its snapshot may never see the finish.
    const waitedFrom = performance.now();
    const end = await waitForFinish({
      store: this.store,
      key,
      seen: existing,
      budgetMs,
      pollMaxMs: this.options.waitPollMaxMs,
      signal: wait.signal,
    });
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
  ): Promise<ClaimDecision> {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const nowMs = this.now();
      let inserted: InsertClaimResult;
      try {
        inserted = await store.insertClaim({ key, nowMs, fingerprint });
      } catch (error) {
        throw storeError('claim', error);
      }
      if (inserted.inserted) return this.claimed(inserted.receipt, false, false);
      const existing = inserted.receipt;
      if (fingerprint !== null) {
        const stored = this.storedFingerprintOf(existing);
        if (stored !== fingerprint) {
          this.events.emit('receipt:payload-mismatch', { key });
          throw new PayloadMismatch(key, stored, fingerprint);
        }
      }
      if (existing.status === 'completed') return { kind: 'replay', receipt: existing };
      if (existing.status === 'processing') {
        // The lease runs from the claim's last heartbeat (`claimedAtMs`); Retry-After says what is left of it.
        const leaseLeftMs = existing.claimedAtMs + this.options.leaseMs - nowMs;
        if (leaseLeftMs > 0) {
          if (!(await this.awaitInFlight(key, existing, leaseLeftMs, wait))) throw this.inProgress(key, leaseLeftMs);
          // The claim finished, moved or went stale while we waited: claim again (a wait is not a lost round).
          round--;
          continue;
        }
      }
      const taken = await storeCall('takeover', () =>
        store.takeover({
          key,
          expectedStatus: existing.status as 'processing' | 'failed',
          expectedAttempts: existing.attempts,
          nowMs,
        }),
      );
      if (taken) return this.claimed(taken, existing.status === 'processing', existing.status === 'failed');
      // Another worker changed the receipt between our read and our compare-and-set: look again.
    }
    throw this.inProgress(key, this.options.maxRetryAfterMs);
  }

  /**
   * A caller with a fingerprint meets a receipt without one (NULL or empty): the row was not written by a claim with
   * a fingerprint, so neither a replay nor a mismatch would be true. @throws {ReceiptCorrupted}
   */
  private storedFingerprintOf(existing: Receipt): string {
    const stored = existing.fingerprint;
    if (stored !== null && stored !== '') return stored;
    const problem = stored === null ? 'fingerprint-missing' : 'fingerprint-empty';
    this.events.emit('receipt:corrupted', { key: existing.key, problem });
    throw new ReceiptCorrupted(existing.key, problem);
  }

  // Events are built only when someone listens (`events.has`): most deliveries have no observer.
  private claimed(receipt: Receipt, takeover: boolean, retry: boolean): ClaimDecision {
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

  private async execute(
    store: Store,
    decision: ClaimDecision & { kind: 'claimed' },
    invoke: () => HandlerResult,
    transactional: boolean,
  ): Promise<Outcome> {
    const { key, attempts: attempt } = decision.receipt;
    const started = this.now();
    let result: Awaited<HandlerResult>;
    const held = this.tracksHeld(transactional) ? this.heldClaim(key) : undefined;
    const heartbeat = transactional ? undefined : this.heartbeatOf(store, key, attempt);
    try {
      result = await (held === undefined ? invoke() : heldClaims.run(held, invoke));
    } catch (error) {
      if (held !== undefined) held.active = false;
      heartbeat?.stop();
      if (heartbeat?.lost) this.claimLost(key, attempt, false);
      else await this.recordFailure(store, key, attempt, started, error, !transactional);
      throw error;
    }
    if (held !== undefined) held.active = false;
    if (heartbeat !== undefined) {
      heartbeat.stop();
      if (heartbeat.lost) this.claimLost(key, attempt, true);
    }
    let response: StoredResponse;
    try {
      response = toStoredResponse(result, this.options.maxResponseBytes);
    } catch (error) {
      // A response that cannot be stored is a failed run, like a throw (docs/design.md §3 "Invalid handler response"):
      // in a transaction, throwing rolls the work back with the claim; outside one, the receipt is marked failed so
      // the next delivery runs the handler again instead of replaying a 500 forever.
      await this.recordFailure(store, key, attempt, started, error, !transactional);
      throw error;
    }
    const nowMs = this.now();
    let completed: boolean;
    try {
      completed = await store.complete({ key, attempt, nowMs, response });
    } catch (error) {
      throw storeError('complete', error);
    }
    if (!completed) this.claimLost(key, attempt, true);
    if (this.events.has('receipt:completed')) {
      this.events.emit('receipt:completed', { key, attempt, durationMs: nowMs - started });
    }
    // Written out field by field (not a spread of the claim): one object shape for every completed receipt.
    const claimed = decision.receipt;
    const receipt: Receipt = Object.freeze({
      key: claimed.key,
      status: 'completed',
      attempts: claimed.attempts,
      claimedAtMs: claimed.claimedAtMs,
      finishedAtMs: nowMs,
      fingerprint: claimed.fingerprint,
      response,
      error: null,
    });
    return Object.freeze({ response, isReplay: false, attempts: attempt, receipt });
  }

  /**
   * The heartbeat of a claim outside a transaction (`GuardOptions.heartbeatMs`), or `undefined` when heartbeats are
   * off or the store cannot renew a claim.
   */
  private heartbeatOf(store: Store, key: RequestKey, attempt: number): ClaimHeartbeat | undefined {
    const everyMs = this.options.heartbeatMs;
    if (everyMs === 0 || typeof store.renewClaim !== 'function') return undefined;
    return new ClaimHeartbeat({
      store: store as Store & Required<Pick<Store, 'renewClaim'>>,
      key,
      attempt,
      everyMs,
      now: () => this.now(),
      onError: (error) => {
        if (this.events.has('receipt:heartbeat-failed')) {
          this.events.emit('receipt:heartbeat-failed', { key, attempt, error: errorText(error, 500) });
        }
      },
    });
  }

  /**
   * Reports a claim lost (taken over, or its renewal refused) and, with `raise`, throws `ClaimLost`: the handler's
   * result is not recorded, the new owner's outcome stands. @throws {ClaimLost} when `raise`.
   */
  private claimLost(key: RequestKey, attempt: number, raise: boolean): void {
    this.events.emit('receipt:claim-lost', { key, attempt });
    if (raise) throw new ClaimLost(key, attempt);
  }

  /** Marks the claim `failed` with the bounded error text (not inside a caller's transaction: it rolls back). */
  private async recordFailure(
    store: Store,
    key: RequestKey,
    attempt: number,
    started: number,
    error: unknown,
    record: boolean,
  ): Promise<void> {
    const text = errorText(error, this.options.maxErrorChars);
    const nowMs = this.now();
    this.events.emit('receipt:failed', { key, attempt, durationMs: nowMs - started, error: text });
    if (!record) return;
    try {
      const recorded = await store.fail({ key, attempt, nowMs, error: text });
      if (!recorded) this.events.emit('receipt:claim-lost', { key, attempt });
    } catch (storeError) {
      this.events.emit('receipt:fail-unrecorded', { key, attempt, error: errorText(storeError, 500) });
    }
  }
}
