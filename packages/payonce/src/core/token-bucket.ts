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

  /** Whether the bucket is full now (a full bucket is the same as a new one). */
  get full(): boolean {
    this.refill();
    return this.tokens >= this.capacity;
  }

  /** Takes `n` tokens: `0` when taken, else the wait in ms before `n` are available (nothing taken). */
  take(n: number): number {
    const wait = this.waitFor(n);
    if (wait === 0) this.tokens -= n;
    return wait;
  }

  /** Takes nothing: `0` when `n` tokens are there now, else the wait in ms before they will be. */
  waitFor(n: number): number {
    this.refill();
    return this.tokens >= n ? 0 : Math.ceil(((n - this.tokens) / this.perSecond) * 1000);
  }

  /** Takes `n` tokens, or all there are when fewer (never below empty). */
  spend(n: number): void {
    this.refill();
    this.tokens = Math.max(0, this.tokens - n);
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
  }
}
