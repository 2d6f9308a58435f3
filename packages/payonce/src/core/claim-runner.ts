import { ClaimHeartbeat } from './claim-heartbeat.js';
import { ClaimLost } from './errors.js';
import type { GuardEmitter } from './guard-events.js';
import { errorText, type StoreFailures } from './guard-failures.js';
import type { ResolvedGuardOptions } from './guard-options.js';
import type { GuardNote } from './guard-telemetry.js';
import type { HandlerResult } from './guard-types.js';
import { holdClaim, runHolding } from './held-claims.js';
import type { Outcome } from './outcome.js';
import type { Receipt, StoredResponse } from './receipt.js';
import type { RequestKey } from './request-key.js';
import { toStoredResponse } from './response.js';
import type { Store } from './store.js';

/** What a `ClaimRunner` works with: the guard's own store, resolved options, event emitter and clock (epoch ms). */
export interface ClaimRunnerDeps {
  /** The guard's store: the identity the held claims are tracked under (a transaction's view differs). */
  readonly guardStore: Store;
  readonly options: ResolvedGuardOptions;
  readonly events: GuardEmitter;
  /** How the guard turns store failures into its errors (and reports a missing schema once). */
  readonly failures: StoreFailures;
  readonly now: () => number;
}

/**
 * The second half of a guarded call: runs the handler of a claim the guard holds and records how it ended
 * (`completed` with the stored response, `failed` with the bounded error text, or lost to a takeover).
 * @see docs/design.md §3 "Handler failure", "Invalid handler response", "Leases and heartbeats", "Fencing".
 */
export class ClaimRunner {
  private readonly deps: ClaimRunnerDeps;
  private readonly guardStore: Store;

  /** A runner for one guard; see `ClaimRunnerDeps`. */
  constructor(deps: ClaimRunnerDeps) {
    this.deps = deps;
    this.guardStore = deps.guardStore;
  }

  /**
   * Runs `invoke` under the claim `claimed` on `store` (the guard's store or its view of a caller's transaction):
   * heartbeat outside a transaction, the key in the held claims when `trackHeld`, then stores the response (marked by
   * the event `payonce.guard.handled` on the call's span when `note` is traced).
   * @throws {ClaimLost} the claim was taken over or its renewal refused; the result is not stored.
   * @throws {InvalidOption} the handler's response cannot be stored (the receipt is marked `failed`).
   * @throws {StoreUnavailable} completing the receipt failed.
   * @throws whatever `invoke` throws, after the receipt is marked `failed` (outside a transaction).
   */
  async execute(
    store: Store,
    claimed: Receipt,
    invoke: () => HandlerResult,
    transactional: boolean,
    trackHeld: boolean,
    note: GuardNote,
  ): Promise<Outcome> {
    const { key, attempts: attempt } = claimed;
    const started = this.deps.now();
    let result: Awaited<HandlerResult>;
    const held = trackHeld ? holdClaim(this.guardStore, key) : undefined;
    const heartbeat = transactional ? undefined : this.heartbeatOf(store, key, attempt);
    try {
      result = await (held === undefined ? invoke() : runHolding(held, invoke));
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
      response = toStoredResponse(result, this.deps.options.maxResponseBytes);
    } catch (error) {
      // A response that cannot be stored is a failed run, like a throw (docs/design.md §3 "Invalid handler response"):
      // in a transaction, throwing rolls the work back with the claim; outside one, the receipt is marked failed so
      // the next delivery runs the handler again instead of replaying a 500 forever.
      await this.recordFailure(store, key, attempt, started, error, !transactional);
      throw error;
    }
    const nowMs = this.deps.now();
    let completed: boolean;
    try {
      note.span.event('payonce.guard.handled');
      completed = await store.complete({ key, attempt, nowMs, response });
    } catch (error) {
      throw this.deps.failures.of('complete', error, store);
    }
    if (!completed) this.claimLost(key, attempt, true);
    if (this.deps.events.has('receipt:completed')) {
      this.deps.events.emit('receipt:completed', { key, attempt, durationMs: nowMs - started });
    }
    // Written out field by field (not a spread of the claim): one object shape for every completed receipt.
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
    const everyMs = this.deps.options.heartbeatMs;
    if (everyMs === 0 || typeof store.renewClaim !== 'function') return undefined;
    return new ClaimHeartbeat({
      store: store as Store & Required<Pick<Store, 'renewClaim'>>,
      key,
      attempt,
      everyMs,
      now: this.deps.now,
      onError: (error) => {
        if (this.deps.events.has('receipt:heartbeat-failed')) {
          this.deps.events.emit('receipt:heartbeat-failed', { key, attempt, error: errorText(error, 500) });
        }
      },
    });
  }

  /**
   * Reports a claim lost (taken over, or its renewal refused) and, with `raise`, throws `ClaimLost`: the handler's
   * result is not recorded, the new owner's outcome stands. @throws {ClaimLost} when `raise`.
   */
  private claimLost(key: RequestKey, attempt: number, raise: boolean): void {
    this.deps.events.emit('receipt:claim-lost', { key, attempt });
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
    const text = errorText(error, this.deps.options.maxErrorChars);
    const nowMs = this.deps.now();
    this.deps.events.emit('receipt:failed', { key, attempt, durationMs: nowMs - started, error: text });
    if (!record) return;
    try {
      const recorded = await store.fail({ key, attempt, nowMs, error: text });
      if (!recorded) this.deps.events.emit('receipt:claim-lost', { key, attempt });
    } catch (storeError) {
      this.deps.events.emit('receipt:fail-unrecorded', { key, attempt, error: errorText(storeError, 500) });
    }
  }
}
