import { ClientBuckets } from 'payonce/internal/core/client-buckets.js';
import type { Clock } from 'payonce/internal/core/clock.js';
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

/**
 * Brute-force protection of the admin token: a token bucket of failed checks per client (the request's address;
 * behind a trusted proxy, the forwarded client address). Each wrong token (bearer or console login) takes one;
 * a client whose bucket is empty gets 429 `ADMIN_AUTH_THROTTLED` with `Retry-After` on every token check — right
 * or wrong, so guessing cannot go on — until a failure's worth has refilled. In memory, per process.
 * @see OWASP Authentication cheat sheet "Protect against automated attacks"; docs/console.md.
 */
export class AuthThrottle {
  private readonly buckets: ClientBuckets;

  constructor(clock: Clock, options: AuthThrottleOptions = {}) {
    const perSecond = (options.perMinute ?? 10) / 60;
    this.buckets = new ClientBuckets(options.burst ?? 10, perSecond, options.maxClients ?? 10_000, clock);
  }

  /**
   * Call before checking a token from `client`.
   * @throws {ServiceError} `ADMIN_AUTH_THROTTLED` (429) while the client's failures are used up; the message ends
   *   with `try again in N s` (whole seconds, at least 1), which becomes `Retry-After`.
   */
  check(client: string): void {
    const waitMs = this.buckets.of(client).waitFor(1);
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new ServiceError(
      'ADMIN_AUTH_THROTTLED',
      `too many wrong admin tokens from this client; try again in ${seconds} s`,
    );
  }

  /** Records a wrong token from `client`. */
  fail(client: string): void {
    const bucket = this.buckets.of(client);
    bucket.spend(1);
    this.buckets.keep(client, bucket);
  }
}
