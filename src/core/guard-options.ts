import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { InvalidOption } from './errors.js';

/** Options of `IdempotencyGuard`. */
export interface GuardOptions {
  /**
   * Age of a `processing` claim, in milliseconds, after which another delivery may take it over (the first
   * worker is presumed dead). Set it above the slowest real run, not the average. Must be a positive finite
   * integer. @default 300_000 (5 min; seed 004)
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
   * hooks for the whole process, measured at 8–11 % of an HTTP server's CPU (bench/notes/http-adapter.md).
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
}

/** `GuardOptions` after defaults and validation. */
export interface ResolvedGuardOptions {
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
}

/** Where a guard checks for `NestedClaim`; see `GuardOptions.detectNestedClaims`. */
export type NestedClaimDetection = 'everywhere' | 'waiting-or-transactional' | 'off';

function positiveInt(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !Number.isInteger(value) || value <= 0) {
    throw new InvalidOption(name, `must be a positive finite integer, got ${String(value)}`);
  }
  return value;
}

/** A wait budget: a finite integer of milliseconds, 0 or more. @throws {InvalidOption} otherwise. */
export function waitBudget(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidOption(name, `must be a finite integer of milliseconds, 0 or more, got ${String(value)}`);
  }
  return value;
}

function atMost(value: number, limit: number, name: string): number {
  if (value > limit) throw new InvalidOption(name, `must be at most ${limit}, got ${value}`);
  return value;
}

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
  if (typeof value !== 'boolean') {
    throw new InvalidOption('detectNestedClaims', `must be true or false, got ${typeof value}`);
  }
  return value ? 'everywhere' : 'off';
}

/**
 * Applies defaults and checks every option once.
 * @throws {InvalidOption} for a lease (`staleAfterMs`) or bound that is 0, negative, fractional or not finite,
 *   or a `detectNestedClaims` that is not a boolean.
 */
export function resolveGuardOptions(options: GuardOptions = {}): ResolvedGuardOptions {
  const clock = options.clock ?? systemClock;
  if (typeof clock.now !== 'function') throw new InvalidOption('clock', 'must have a now() method');
  return Object.freeze({
    staleAfterMs: positiveInt(options.staleAfterMs ?? 300_000, 'staleAfterMs'),
    maxErrorChars: positiveInt(options.maxErrorChars ?? 2_000, 'maxErrorChars'),
    maxRetryAfterMs: positiveInt(options.maxRetryAfterMs ?? 5_000, 'maxRetryAfterMs'),
    clock,
    purgeBatchSize: atMost(positiveInt(options.purgeBatchSize ?? 500, 'purgeBatchSize'), 1_000, 'purgeBatchSize'),
    maxResponseBytes: positiveInt(options.maxResponseBytes ?? 6_291_456, 'maxResponseBytes'),
    waitForInFlightMs: waitBudget(options.waitForInFlightMs ?? 0, 'waitForInFlightMs'),
    waitPollMaxMs: positiveInt(options.waitPollMaxMs ?? 100, 'waitPollMaxMs'),
    nestedClaimDetection: detection(options.detectNestedClaims),
  });
}
