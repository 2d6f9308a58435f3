import type { Clock } from './clock.js';

/**
 * A token bucket: `capacity` tokens, refilled at `perSecond` per second. `take(n)` takes n tokens now or answers
 * how long (ms) until n will be there; it never takes part of them.
 */
export class TokenBucket {
  private readonly capacity: number;
  private readonly perSecond: number;
  private readonly clock: Clock;
  private tokens: number;
  private at: number;

  constructor(capacity: number, perSecond: number, clock: Clock) {
    this.capacity = capacity;
    this.perSecond = perSecond;
    this.clock = clock;
    this.tokens = capacity;
    this.at = clock.now();
  }

  /** The bucket size: the most tokens one `take` can ever get. */
  get size(): number {
    return this.capacity;
  }

  /** Takes `n` tokens: `0` when taken, else the wait in ms before `n` are available (nothing taken). */
  take(n: number): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens >= n) {
      this.tokens -= n;
      return 0;
    }
    return Math.ceil(((n - this.tokens) / this.perSecond) * 1000);
  }
}
