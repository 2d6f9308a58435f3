import type { Clock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';

/**
 * The purge cut-off in epoch milliseconds: a `Date` as is, a number as an age before `clock.now()`.
 * @throws {InvalidOption} an invalid `Date`, a negative or non-finite age.
 */
export function journalCutoff(olderThan: Date | number, clock: Clock): number {
  if (olderThan instanceof Date) {
    const ms = olderThan.getTime();
    if (!Number.isFinite(ms)) throw new InvalidOption('olderThan', 'is an invalid Date');
    return ms;
  }
  if (typeof olderThan !== 'number' || !Number.isFinite(olderThan) || olderThan < 0) {
    throw new InvalidOption('olderThan', `must be a Date or a non-negative age in ms, got ${String(olderThan)}`);
  }
  return clock.now() - olderThan;
}

/** The lookup as an object. */
export function lookupOf(lookup: { reference: string; provider?: string } | string): {
  reference: string;
  provider: string | undefined;
} {
  if (typeof lookup === 'string') return { reference: lookup, provider: undefined };
  return { reference: lookup.reference, provider: lookup.provider };
}
