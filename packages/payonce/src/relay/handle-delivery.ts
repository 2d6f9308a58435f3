import type { SqlTarget } from '../outbox/sql-transaction.js';
import {
  applyOnce,
  type ConsumedMessage,
  type ConsumerCounters,
  type ConsumerHandler,
  type InboxOutcome,
  parseBody,
} from './inbox.js';

/** What a broker consumer hands {@link handleDelivery}: its inbox, handler, hooks and counters. */
export interface DeliveryConsumer<DB> {
  /** The consumer's SQL database, where the inbox and the handler's writes live. */
  readonly target: SqlTarget<DB>;
  /** Inbox namespace (checked by `checkInboxName`). */
  readonly inboxName: string;
  readonly handler: ConsumerHandler<DB>;
  /** After the inbox transaction committed and before the ack. */
  readonly onCommitted?: ((message: ConsumedMessage, outcome: InboxOutcome) => void | Promise<void>) | undefined;
  /** A handler failure (the consumer goes on). */
  readonly report: (error: unknown, message: ConsumedMessage | null) => void;
  readonly counters: ConsumerCounters;
}

/** One delivery as its broker gave it. */
export interface BrokerDelivery {
  /** The message's headers and ids, `payload` not yet parsed. */
  readonly consumed: ConsumedMessage;
  /** The body as UTF-8 text. */
  readonly body: () => string;
  /** Acknowledges the delivery (after the commit). */
  readonly ack: () => void;
  /**
   * Negatively acknowledges a delivery whose handler failed (a redelivery later, or the dead letter after the
   * last allowed delivery). What it throws is the caller's.
   */
  readonly fail: (error: unknown, consumed: ConsumedMessage) => void | Promise<void>;
}

/**
 * Handles one delivery of the NATS or AMQP consumer: parses its JSON body, runs the handler through the inbox
 * (`applyOnce`: the handler's writes and the inbox row in one transaction of `target`), calls `onCommitted`,
 * then acks; a duplicate is acked without running the handler. A failure (bad body, the handler, the commit,
 * `onCommitted`) counts as `failed`, is reported, and the delivery is handed to `fail` instead of being acked.
 * @throws what `delivery.fail` throws.
 * @see docs/relay.md (consumers, at-least-once delivery made exactly-once in effect by the inbox).
 */
export async function handleDelivery<DB>(consumer: DeliveryConsumer<DB>, delivery: BrokerDelivery): Promise<void> {
  let consumed = delivery.consumed;
  try {
    consumed = Object.freeze({ ...consumed, payload: parseBody(delivery.body()) });
    const outcome = await applyOnce(consumer.target, consumer.inboxName, consumed, consumer.handler);
    await consumer.onCommitted?.(consumed, outcome);
    delivery.ack();
    consumer.counters[outcome === 'applied' ? 'applied' : 'duplicates']++;
  } catch (error) {
    consumer.counters.failed++;
    consumer.report(error, consumed);
    await delivery.fail(error, consumed);
  }
}
