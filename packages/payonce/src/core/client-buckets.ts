import type { Clock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

/**
 * One {@link TokenBucket} per client (an address, or any key), at most `maxClients` of them in memory: an unknown
 * client gets a full bucket that is stored only once {@link ClientBuckets.keep} is called; past the bound, full
 * buckets are forgotten first (losing nothing: a full bucket is the same as a new one), then the least recently kept.
 * In memory, per process.
 */
export class ClientBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  /**
   * @param capacity tokens per client (the burst). @param perSecond tokens a client gets back per second.
   * @param maxClients most clients kept at once (memory bound).
   */
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly maxClients: number,
    private readonly clock: Clock,
  ) {}

  /** The client's bucket: the kept one, or a new full one (not kept until `keep`). */
  of(client: string): TokenBucket {
    return this.buckets.get(client) ?? new TokenBucket(this.capacity, this.perSecond, this.clock);
  }

  /** Keeps `bucket` as `client`'s, most recently used; then forgets clients beyond `maxClients`. */
  keep(client: string, bucket: TokenBucket): void {
    this.buckets.delete(client);
    this.buckets.set(client, bucket);
    if (this.buckets.size <= this.maxClients) return;
    for (const [other, kept] of this.buckets) if (other !== client && kept.full) this.buckets.delete(other);
    for (const other of this.buckets.keys()) {
      if (this.buckets.size <= this.maxClients) break;
      this.buckets.delete(other);
    }
  }
}
