/** Source of the current time, injectable so tests can move time across the stale-claim boundary. */
export interface Clock {
  /** Milliseconds since the Unix epoch, UTC. */
  now(): number;
}

/** The real clock: `Date.now()`. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/**
 * A clock that only moves when told to; for tests.
 * @example const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z')); clock.advance(300_000);
 */
export class ManualClock implements Clock {
  private current: number;
  constructor(startMs = 1_767_225_600_000) {
    this.current = startMs;
  }
  now(): number {
    return this.current;
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms;
  }
  /** Sets the clock to `ms` milliseconds since the epoch. */
  set(ms: number): void {
    this.current = ms;
  }
}
