import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { InvalidOption } from './errors.js';
import { MAX_TIMER_MS, nonNegativeInt, optionsObject, positiveInt, timerMs } from './options.js';

/** Options of `IdempotencyGuard`. */
export interface GuardOptions {
  /**
   * Length of a claim's lease, in milliseconds: a `processing` claim whose last heartbeat (`Receipt.claimedAtMs`)
   * is this old is presumed dead and another delivery may take it over (fencing by attempt number, docs/design.md §3
   * "Leases and heartbeats"). While a handler runs, the guard renews the lease every `heartbeatMs`, so the lease
   * bounds how long a crashed worker holds its key, not how long a handler may run. Every guard sharing a store
   * should use the same lease. Must be a positive finite integer. @default 30_000 (30 s: three missed heartbeats)
   */
  leaseMs?: number;
  /**
   * Interval, in milliseconds, at which a running handler's claim is renewed (`Store.renewClaim`, the claim's
   * `claimedAtMs` set to now, fenced by the attempt number). A renewal refused by the store (the claim was taken
   * over or purged) makes the claim lost: the handler's result is then not recorded (`ClaimLost`). A renewal the
   * store could not make (store down) is tried again at the next beat. 0 turns heartbeats off (the lease then runs
   * from the claim or takeover: set `leaseMs` above the slowest run). Claims made inside a transaction
   * (`runInTransaction`, `runInNewTransaction`) are never renewed: they are not visible to others until the commit,
   * and a crash rolls them back. Must be an integer, 0 or more, below `leaseMs`.
   * @default floor(leaseMs / 3)
   */
  heartbeatMs?: number;
  /**
   * Former name of `leaseMs`, still accepted: the lease length in milliseconds. Giving both with different values
   * is an `InvalidOption`. @deprecated use `leaseMs`.
   */
  staleAfterMs?: number;
  /** Stored handler error text is cut to this many characters. @default 2_000 */
  maxErrorChars?: number;
  /** Upper bound of `RequestInProgress.retryAfterMs`, in milliseconds. @default 5_000 */
  maxRetryAfterMs?: number;
  /** Source of time. @default systemClock */
  clock?: Clock;
  /** Receipts deleted per statement by `purge`; at most 1 000. @default 500 */
  purgeBatchSize?: number;
  /**
   * Largest response body stored, in bytes. A handler whose response is larger (or otherwise invalid: a status
   * outside 100–599, a non-string header, a body that is not a string or bytes) failed: its receipt is marked
   * `failed` and the `InvalidOption` is thrown, so the next delivery runs it again
   * (docs/design.md §3 "Invalid handler response"). The
   * default fits MySQL/MariaDB's default `max_allowed_packet` (16 MiB, bodies travel hex-escaped).
   * @default 6_291_456 (6 MiB)
   */
  maxResponseBytes?: number;
  /**
   * How long, in milliseconds, a duplicate that meets a fresh `processing` claim held elsewhere waits for that
   * claim to finish before `RequestInProgress` is thrown: completed → the stored response as a replay; failed →
   * this call runs as the retry (usual claim rules); lease ran out meanwhile → the usual stale takeover. The wait
   * is woken by the store where it can notify (`Store.watchReceipt`), else it polls `find` with back-off up to
   * `waitPollMaxMs`. Overridable per call (`RunOptions.waitForInFlightMs`). 0 = never wait (answer at once).
   * Must be a finite integer, 0 or more. @default 0
   */
  waitForInFlightMs?: number;
  /**
   * Upper bound of the polling interval, in milliseconds, while waiting on a store that cannot notify (MySQL,
   * SQLite): polls start at 10 ms and double up to this. On a store that notifies, the receipt is also re-read
   * every `max(1 000, waitPollMaxMs)` ms in case a notification was lost. @default 100
   */
  waitPollMaxMs?: number;
  /**
   * Whether a claim of the key that the running handler chain already holds throws `NestedClaim` (a misuse). The
   * check follows the handler's async context with `AsyncLocalStorage`; on Node.js before 24 that turns on promise
   * hooks for the whole process, measured at 8–11 % of an HTTP server's CPU (packages/bench/notes/http-adapter.md).
   * - `true`: checked around every handler.
   * - unset (the default): checked around every handler outside production and on Node.js ≥ 24. With
   *   `NODE_ENV=production` on older Node.js it is still checked wherever a nested claim would wait or hang: around
   *   every handler of `runInTransaction` / `runInNewTransaction` (a nested claim there waits on the outer
   *   transaction's row: for ever on PostgreSQL and SQLite), and around every handler of a guard with a
   *   `waitForInFlightMs` above 0. Only around a plain `run` of a guard that never waits is the check skipped; a
   *   nested claim there is answered `RequestInProgress` at once, which is why the default skips it.
   * - `false`: never checked (only when you measured the cost; a nested claim in a transaction then hangs).
   * `NODE_ENV` and the Node.js version are read when the guard is constructed.
   * @default unset (see above)
   */
  detectNestedClaims?: boolean;
  /**
   * Whether a call starts its `payonce.guard` span only inside an existing trace (an active span in the call's
   * context, sampled or not), as OpenTelemetry's own Redis and database instrumentations do by default
   * (`requireParentSpan` of `@opentelemetry/instrumentation-ioredis`). payonce's own entry points (the webhook
   * intake, the Idempotency-Key middleware, the outbox worker, the relay) start their spans first, so their guard
   * calls are always traced; a `guard.run` from your code is traced when your request's span (or any span) is
   * active. `false`: a call outside any trace starts a trace of its own. Metrics are recorded either way.
   * Outside a trace the guard then costs no span at all: one sampled span costs the SDK 10–15 µs of CPU, a third of
   * a Redis guard call (packages/bench/notes/otel.md). No effect without an OpenTelemetry SDK.
   * @default true
   */
  requireParentSpan?: boolean;
}

/** `GuardOptions` after defaults and validation. */
export interface ResolvedGuardOptions {
  /** Lease of a claim, ms (`GuardOptions.leaseMs`). */
  readonly leaseMs: number;
  /** Heartbeat interval of a running claim, ms; 0 = no heartbeat (`GuardOptions.heartbeatMs`). */
  readonly heartbeatMs: number;
  /** The same value as `leaseMs`, under its former name (read by the admin console and older callers). */
  readonly staleAfterMs: number;
  readonly maxErrorChars: number;
  readonly maxRetryAfterMs: number;
  readonly clock: Clock;
  readonly purgeBatchSize: number;
  readonly maxResponseBytes: number;
  readonly waitForInFlightMs: number;
  readonly waitPollMaxMs: number;
  /** Where `NestedClaim` is checked: `everywhere`, `waiting-or-transactional` handlers only, or `off`. */
  readonly nestedClaimDetection: NestedClaimDetection;
  /** Whether a call outside any trace starts no span (`GuardOptions.requireParentSpan`). */
  readonly requireParentSpan: boolean;
}

/** Where a guard checks for `NestedClaim`; see `GuardOptions.detectNestedClaims`. */
export type NestedClaimDetection = 'everywhere' | 'waiting-or-transactional' | 'off';

/**
 * Whether an unset `GuardOptions.detectNestedClaims` checks around every handler: where `AsyncLocalStorage` is
 * cheap (Node.js ≥ 24, async context frames) or outside production (`nodeEnv` other than exactly `production`,
 * unset included). Otherwise only waiting or transactional handlers are checked.
 * @example everywhereByDefault(process.versions.node, process.env.NODE_ENV)
 */
export function everywhereByDefault(nodeVersion: string, nodeEnv: string | undefined): boolean {
  return Number.parseInt(nodeVersion, 10) >= 24 || nodeEnv !== 'production';
}

function detection(value: unknown): NestedClaimDetection {
  if (value === undefined || value === null) {
    return everywhereByDefault(process.versions.node, process.env.NODE_ENV) ? 'everywhere' : 'waiting-or-transactional';
  }
  return booleanOption('detectNestedClaims', value, false) ? 'everywhere' : 'off';
}

/** A boolean option's value, `fallback` when unset. @throws {InvalidOption} for a value that is not a boolean. */
function booleanOption(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidOption(name, `must be true or false, got ${typeof value}`);
  return value;
}

/** Default lease of a claim, ms: three missed heartbeats of 10 s. */
const DEFAULT_LEASE_MS = 30_000;

/**
 * The lease and heartbeat of `options`: `leaseMs` (or its former name `staleAfterMs`), default 30 000 ms, and
 * `heartbeatMs`, default a third of the lease, 0 (off) or below the lease.
 * @throws {InvalidOption} for a lease that is not a positive finite integer, `leaseMs` and `staleAfterMs` that
 *   differ, or a heartbeat that is negative, fractional, not finite or not below the lease.
 */
function leaseOf(options: GuardOptions): { leaseMs: number; heartbeatMs: number } {
  const { leaseMs, staleAfterMs } = options;
  if (leaseMs !== undefined && staleAfterMs !== undefined && leaseMs !== staleAfterMs) {
    throw new InvalidOption('leaseMs', `and staleAfterMs (its former name) differ: ${leaseMs} and ${staleAfterMs}`);
  }
  const lease =
    leaseMs !== undefined
      ? positiveInt('leaseMs', leaseMs)
      : positiveInt(staleAfterMs === undefined ? 'leaseMs' : 'staleAfterMs', staleAfterMs ?? DEFAULT_LEASE_MS);
  const heartbeatMs = nonNegativeInt(
    'heartbeatMs',
    options.heartbeatMs ?? Math.min(Math.floor(lease / 3), MAX_TIMER_MS),
    MAX_TIMER_MS,
  );
  if (heartbeatMs >= lease) {
    throw new InvalidOption('heartbeatMs', `must be below leaseMs (${lease}), got ${heartbeatMs}`);
  }
  return { leaseMs: lease, heartbeatMs };
}

/**
 * Applies defaults and checks every option once.
 * @throws {InvalidOption} for a lease (`leaseMs`, `staleAfterMs`), heartbeat or bound that is out of range,
 *   fractional or not finite, or a `detectNestedClaims` or `requireParentSpan` that is not a boolean.
 */
export function resolveGuardOptions(given: GuardOptions = {}): ResolvedGuardOptions {
  const options = optionsObject('options', given);
  const clock = options.clock ?? systemClock;
  if (typeof clock.now !== 'function') throw new InvalidOption('clock', 'must have a now() method');
  const { leaseMs, heartbeatMs } = leaseOf(options);
  return Object.freeze({
    leaseMs,
    heartbeatMs,
    staleAfterMs: leaseMs,
    maxErrorChars: positiveInt('maxErrorChars', options.maxErrorChars ?? 2_000),
    maxRetryAfterMs: positiveInt('maxRetryAfterMs', options.maxRetryAfterMs ?? 5_000),
    clock,
    purgeBatchSize: positiveInt('purgeBatchSize', options.purgeBatchSize ?? 500, 1_000),
    maxResponseBytes: positiveInt('maxResponseBytes', options.maxResponseBytes ?? 6_291_456),
    waitForInFlightMs: nonNegativeInt('waitForInFlightMs', options.waitForInFlightMs ?? 0, MAX_TIMER_MS),
    waitPollMaxMs: timerMs('waitPollMaxMs', options.waitPollMaxMs ?? 100),
    nestedClaimDetection: detection(options.detectNestedClaims),
    requireParentSpan: booleanOption('requireParentSpan', options.requireParentSpan, true),
  });
}
