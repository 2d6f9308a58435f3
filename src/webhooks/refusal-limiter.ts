import type { Clock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { TokenBucket } from '../core/token-bucket.js';

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

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new InvalidOption(`refusalLimit.${name}`, 'must be a positive number');
  }
  return v;
}

/** The per-client refusal buckets of one intake, bounded in number (`maxClients`). */
export class RefusalLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly burst: number;
  private readonly perSecond: number;
  private readonly maxClients: number;

  /** @throws {InvalidOption} a `burst`, `perMinute` or `maxClients` that is not a positive number. */
  constructor(
    options: RefusalLimitOptions,
    private readonly clock: Clock,
  ) {
    this.burst = positive(options.burst, 100, 'burst');
    this.perSecond = positive(options.perMinute, 60, 'perMinute') / 60;
    this.maxClients = Math.floor(positive(options.maxClients, 10_000, 'maxClients'));
  }

  /**
   * Counts one refusal of `client` (`''` when the adapter did not say who it is): `0` when it may be journaled,
   * else the wait in ms until the client's next refusal will be.
   */
  take(client: string): number {
    let bucket = this.buckets.get(client);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxClients) {
        const oldest = this.buckets.keys().next();
        if (!oldest.done) this.buckets.delete(oldest.value);
      }
      bucket = new TokenBucket(this.burst, this.perSecond, this.clock);
    } else {
      this.buckets.delete(client); // re-inserted below: the map stays in order of last use
    }
    this.buckets.set(client, bucket);
    return bucket.take(1);
  }
}
