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
}

/** `GuardOptions` after defaults and validation. */
export interface ResolvedGuardOptions {
  readonly staleAfterMs: number;
  readonly maxErrorChars: number;
  readonly maxRetryAfterMs: number;
  readonly clock: Clock;
  readonly purgeBatchSize: number;
  readonly maxResponseBytes: number;
}

function positiveInt(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !Number.isInteger(value) || value <= 0) {
    throw new InvalidOption(name, `must be a positive finite integer, got ${String(value)}`);
  }
  return value;
}

function atMost(value: number, limit: number, name: string): number {
  if (value > limit) throw new InvalidOption(name, `must be at most ${limit}, got ${value}`);
  return value;
}

/**
 * Applies defaults and checks every option once.
 * @throws {InvalidOption} for a lease (`staleAfterMs`) or bound that is 0, negative, fractional or not finite.
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
  });
}
