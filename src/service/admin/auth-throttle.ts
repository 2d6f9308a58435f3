import type { Clock } from '../../core/clock.js';
import { ServiceError } from '../service-error.js';

/** Limits of {@link AuthThrottle}. */
export interface AuthThrottleOptions {
  /** Failed token checks a client may make in a burst before it is throttled. @default 10 */
  readonly burst?: number;
  /** Failed checks a client gets back per minute after that (token bucket refill). @default 10 */
  readonly perMinute?: number;
  /** Most clients tracked at once; the oldest are forgotten beyond it (memory bound). @default 10_000 */
  readonly maxClients?: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

/**
 * Brute-force protection of the admin token: a token bucket of failed checks per client (the request's address;
 * behind a trusted proxy, the forwarded client address). Each wrong token (bearer or console login) takes one;
 * a client whose bucket is empty gets 429 `ADMIN_AUTH_THROTTLED` with `Retry-After` on every token check — right
 * or wrong, so guessing cannot go on — until a failure's worth has refilled. In memory, per process.
 * @see OWASP Authentication cheat sheet "Protect against automated attacks"; docs/console.md.
 */
export class AuthThrottle {
  private readonly clock: Clock;
  private readonly burst: number;
  private readonly perMs: number;
  private readonly maxClients: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(clock: Clock, options: AuthThrottleOptions = {}) {
    this.clock = clock;
    this.burst = options.burst ?? 10;
    this.perMs = (options.perMinute ?? 10) / 60_000;
    this.maxClients = options.maxClients ?? 10_000;
  }

  /** The client's bucket refilled to now (a full bucket is not stored). */
  private refilled(client: string): Bucket {
    const now = this.clock.now();
    const bucket = this.buckets.get(client);
    if (!bucket) return { tokens: this.burst, atMs: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.atMs) * this.perMs);
    bucket.atMs = now;
    return bucket;
  }

  /**
   * Call before checking a token from `client`.
   * @throws {ServiceError} `ADMIN_AUTH_THROTTLED` (429) while the client's failures are used up; the message ends
   *   with `try again in N s` (whole seconds, at least 1), which becomes `Retry-After`.
   */
  check(client: string): void {
    const bucket = this.refilled(client);
    if (bucket.tokens >= 1) return;
    const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
    throw new ServiceError(
      'ADMIN_AUTH_THROTTLED',
      `too many wrong admin tokens from this client; try again in ${seconds} s`,
    );
  }

  /** Records a wrong token from `client`. */
  fail(client: string): void {
    const bucket = this.refilled(client);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.delete(client);
    this.buckets.set(client, bucket);
    if (this.buckets.size > this.maxClients) this.forget();
  }

  /** Drops refilled clients, then the oldest, until the map is within `maxClients`. */
  private forget(): void {
    for (const client of [...this.buckets.keys()]) {
      if (this.refilled(client).tokens >= this.burst) this.buckets.delete(client);
    }
    for (const client of this.buckets.keys()) {
      if (this.buckets.size <= this.maxClients) break;
      this.buckets.delete(client);
    }
  }
}
