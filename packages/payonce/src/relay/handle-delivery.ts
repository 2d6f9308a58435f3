import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import { spanContextOf } from '../otel/trace-context.js';
import type { SqlTarget } from '../outbox/sql-transaction.js';
import {
  applyOnce,
  type ConsumedMessage,
  type ConsumerCounters,
  type ConsumerHandler,
  type InboxOutcome,
  parseBody,
} from './inbox.js';
import type { TraceHeaders } from './relay-message.js';

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
  /** The broker, for the spans' `messaging.system` (`nats`, `rabbitmq`). */
  readonly broker?: 'nats' | 'amqp';
}

/** The trace headers of a delivery, or `null` when `traceparent` is missing or malformed (W3C Trace Context). */
export function traceOf(traceparent: string | null, tracestate: string | null): TraceHeaders | null {
  if (traceparent === null || spanContextOf({ traceparent }) === null) return null;
  return tracestate === null || tracestate === '' ? { traceparent } : { traceparent, tracestate };
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
  const { consumed } = delivery;
  const attributes = {
    'messaging.system': consumer.broker === 'amqp' ? 'rabbitmq' : 'nats',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': consumed.subject,
    'messaging.message.id': consumed.id,
    ...(consumed.deliveryCount === null ? {} : { [A.redelivery]: consumed.deliveryCount - 1 }),
  };
  const spec = { kind: 'consumer' as const, attributes, ...(consumed.trace ? { parent: consumed.trace } : {}) };
  await inSpan(`process ${consumed.subject}`, spec, () => handleTraced(consumer, delivery));
}

async function handleTraced<DB>(consumer: DeliveryConsumer<DB>, delivery: BrokerDelivery): Promise<void> {
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
