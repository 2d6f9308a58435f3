import type { ReceiptWatch } from '../../core/store.js';
import { ReceiptWaiters } from '../receipt-waiters.js';
import type { RedisSubscriberLike } from './redis-like.js';

/**
 * The name a finish is announced on and heard on, for a store whose channel is `channel`: ioredis puts a client's
 * `keyPrefix` before a sharded channel (`SSUBSCRIBE` names its channel like a key) but not before a plain one, and a
 * script's `SPUBLISH` gets no prefix from the client, so sharded announcements go to `clientPrefix + channel`.
 */
export function heardChannel(channel: string, sharded: boolean, clientPrefix: string): string {
  return sharded ? clientPrefix + channel : channel;
}

/**
 * One subscriber connection per store on the store's finished-events channel, opened on the first wait and
 * shared by every waiter of the process. `SUBSCRIBE` on one server; `SSUBSCRIBE` (sharded pub/sub) on a Redis
 * Cluster, where the channel's hash tag puts it on the shard that holds the store's receipts. A dropped or
 * reconnecting subscriber wakes every waiter (a finish may have been missed; each re-reads its receipt).
 */
export class RedisFinishListener {
  private readonly waiters = new ReceiptWaiters();
  private subscriber: Promise<RedisSubscriberLike> | null = null;
  private closed = false;

  /** The channel's name in the messages the subscriber hears (`heardChannel`). */
  private readonly heard: string;

  /**
   * @param channel the store's finished-events channel, as the store names it (what is subscribed to).
   * @param sharded `SSUBSCRIBE` instead of `SUBSCRIBE`.
   * @param clientPrefix the client's `keyPrefix` (see `heardChannel`).
   */
  constructor(
    private readonly newSubscriber: () => RedisSubscriberLike,
    private readonly channel: string,
    private readonly sharded: boolean,
    clientPrefix = '',
  ) {
    this.heard = heardChannel(channel, sharded, clientPrefix);
  }

  /** A watch on receipt `id` (`<n>:<provider>:<externalId>`), returned once the subscription is active. */
  async watch(id: string): Promise<ReceiptWatch> {
    if (this.closed) throw new Error('redis: the store is closed');
    await this.subscribed();
    return this.waiters.watch(id);
  }

  /** Disconnects the subscriber and wakes every waiter. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    const subscriber = this.subscriber;
    this.subscriber = null;
    this.waiters.wakeAll();
    if (subscriber) await subscriber.then((s) => s.disconnect()).catch(() => {});
  }

  private subscribed(): Promise<RedisSubscriberLike> {
    if (this.subscriber) return this.subscriber;
    const opening = this.open().catch((error: unknown) => {
      if (this.subscriber === opening) this.subscriber = null;
      throw error;
    });
    this.subscriber = opening;
    return opening;
  }

  private async open(): Promise<RedisSubscriberLike> {
    const subscriber = this.newSubscriber();
    subscriber.on('error', () => {});
    const lost = (): void => this.waiters.wakeAll();
    subscriber.on('close', lost);
    subscriber.on('reconnecting', lost);
    subscriber.on(this.sharded ? 'smessage' : 'message', (channel, message) => {
      if (channel === this.heard) this.waiters.wake(message);
    });
    try {
      // A lazy connection without an offline queue (RedisStore.connect's client, duplicated) refuses commands
      // until it is connected: without this, SUBSCRIBE failed and every waiter fell back to polling.
      if (subscriber.status === 'wait' && typeof subscriber.connect === 'function') await subscriber.connect();
      if (this.sharded) {
        if (typeof subscriber.ssubscribe !== 'function') throw new Error('redis: the subscriber has no ssubscribe');
        await subscriber.ssubscribe(this.channel);
      } else {
        await subscriber.subscribe(this.channel);
      }
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    return subscriber;
  }
}
