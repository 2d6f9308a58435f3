import { ClientBuckets } from '../core/client-buckets.js';
import type { Clock } from '../core/clock.js';
import { positiveNumber } from '../core/options.js';

/**
 * How many unauthenticated deliveries (bad, missing or stale signature, body over the size limit) one client may
 * have refused and journaled: a token bucket per client of `burst` refusals, refilled at `perMinute`. Past it, the
 * client's further refusals are answered 429 `WEBHOOK_REFUSALS_LIMITED` with `Retry-After` and get no journal
 * row. Authentic deliveries are never limited.
 */
export interface RefusalLimitOptions {
  /** Refusals a client may have at once before it is limited. @default 100 */
  readonly burst?: number;
  /** Refusals per minute a client gets back. @default 60 */
  readonly perMinute?: number;
  /** Clients tracked at once; past it the client seen longest ago is forgotten. @default 10_000 */
  readonly maxClients?: number;
}

/** The per-client refusal buckets of one intake, bounded in number (`maxClients`). */
export class RefusalLimiter {
  private readonly buckets: ClientBuckets;

  /** @throws {InvalidOption} a `burst`, `perMinute` or `maxClients` that is not a positive number. */
  constructor(options: RefusalLimitOptions, clock: Clock) {
    const burst = positiveNumber('refusalLimit.burst', options.burst ?? 100);
    const perSecond = positiveNumber('refusalLimit.perMinute', options.perMinute ?? 60) / 60;
    const maxClients = Math.floor(positiveNumber('refusalLimit.maxClients', options.maxClients ?? 10_000));
    this.buckets = new ClientBuckets(burst, perSecond, maxClients, clock);
  }

  /**
   * Counts one refusal of `client` (`''` when the adapter did not say who it is): `0` when it may be journaled,
   * else the wait in ms until the client's next refusal will be.
   */
  take(client: string): number {
    const bucket = this.buckets.of(client);
    const waitMs = bucket.take(1);
    this.buckets.keep(client, bucket);
    return waitMs;
  }
}
