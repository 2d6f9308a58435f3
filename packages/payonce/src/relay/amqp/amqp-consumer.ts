import type { Channel, ConsumeMessage } from 'amqplib';
import { InvalidOption } from '../../core/errors.js';
import { positiveInt, timerMs } from '../../core/options.js';
import { handleDelivery, traceOf } from '../handle-delivery.js';
import { type ConsumedMessage, checkInboxName, emptyConsumerCounters, type RunningConsumer } from '../inbox.js';
import type { InboxConsumerOptions } from '../inbox-consumer-options.js';
import { RELAY_HEADERS } from '../relay-message.js';
import { type AmqpLink, connectAmqp } from './amqp-link.js';

/** Options of `consumeRabbitMq`. Durations in ms. */
export interface RabbitMqConsumerOptions<DB> extends InboxConsumerOptions<DB> {
  /** Broker URL, e.g. `amqp://guest:guest@127.0.0.1:5672`. */
  readonly url: string;
  /** The relay's topic exchange. @default `payonce` */
  readonly exchange?: string;
  /** Durable quorum queue of this consumer group (declared, bound to `bindingKeys`). */
  readonly queue: string;
  /** Routing-key patterns bound to the queue. @default [`payonce.#`] */
  readonly bindingKeys?: readonly string[];
  /** Inbox namespace. @default `queue` */
  readonly inboxName?: string;
  /**
   * Unacked deliveries in hand at once (`basic.qos`). 1 keeps each aggregate's order through redeliveries too
   * (a requeued message is delivered again before anything after it); higher is faster, but a `nack`ed message
   * may then be applied after later ones. @default 1
   */
  readonly prefetch?: number;
  /** Deliveries before the queue dead-letters a message (`x-delivery-limit` = this − 1). @default 5 */
  readonly maxDeliveries?: number;
  /** Dead-letter exchange (fanout) with the queue `<queue>.dead-letter` bound to it. @default `<queue>.dead-letter` */
  readonly deadLetterExchange?: string;
  /** Wait before reconnecting after the connection was lost. @default 500 */
  readonly reconnectDelayMs?: number;
}

function headerText(message: ConsumeMessage, name: string): string | null {
  const value = message.properties.headers?.[name] as unknown;
  if (value === undefined || value === null) return null;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function consumedOf(message: ConsumeMessage): ConsumedMessage {
  const sequence = headerText(message, RELAY_HEADERS.sequence);
  const count = headerText(message, 'x-delivery-count');
  const id = message.properties.messageId as string | undefined;
  return Object.freeze({
    id: id ?? '',
    topic:
      headerText(message, RELAY_HEADERS.topic) ??
      (message.properties.type as string | undefined) ??
      message.fields.routingKey,
    subject: message.fields.routingKey,
    aggregateKey: headerText(message, RELAY_HEADERS.aggregate),
    sequence: sequence === null ? null : Number(sequence),
    payload: undefined,
    redelivered: message.fields.redelivered,
    deliveryCount: count === null ? (message.fields.redelivered ? null : 1) : Number(count) + 1,
    trace: traceOf(headerText(message, RELAY_HEADERS.traceparent), headerText(message, RELAY_HEADERS.tracestate)),
  });
}

interface Settings {
  readonly exchange: string;
  readonly bindingKeys: readonly string[];
  readonly inboxName: string;
  readonly prefetch: number;
  readonly maxDeliveries: number;
  readonly deadLetterExchange: string;
  readonly reconnectDelayMs: number;
}

function settingsOf<DB>(options: RabbitMqConsumerOptions<DB>): Settings {
  if (typeof options.queue !== 'string' || options.queue.length === 0 || options.queue.length > 200) {
    throw new InvalidOption('queue', 'must be 1–200 characters');
  }
  return {
    exchange: options.exchange ?? 'payonce',
    bindingKeys: options.bindingKeys ?? ['payonce.#'],
    inboxName: checkInboxName(options.inboxName ?? options.queue),
    prefetch: positiveInt('prefetch', options.prefetch ?? 1),
    maxDeliveries: positiveInt('maxDeliveries', options.maxDeliveries ?? 5),
    deadLetterExchange: options.deadLetterExchange ?? `${options.queue}.dead-letter`,
    reconnectDelayMs: timerMs('reconnectDelayMs', options.reconnectDelayMs ?? 500),
  };
}

/** Declares the exchange, the dead-letter exchange and queue, and the consumer's quorum queue with its bindings. */
async function declare(channel: Channel, queue: string, settings: Settings): Promise<void> {
  await channel.assertExchange(settings.exchange, 'topic', { durable: true });
  await channel.assertExchange(settings.deadLetterExchange, 'fanout', { durable: true });
  const deadQueue = `${queue}.dead-letter`;
  await channel.assertQueue(deadQueue, { durable: true });
  await channel.bindQueue(deadQueue, settings.deadLetterExchange, '');
  await channel.assertQueue(queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': settings.maxDeliveries - 1,
      'x-dead-letter-exchange': settings.deadLetterExchange,
      'x-single-active-consumer': true,
    },
  });
  for (const key of settings.bindingKeys) await channel.bindQueue(queue, settings.exchange, key);
  await channel.prefetch(settings.prefetch);
}

/**
 * An idempotent RabbitMQ consumer: declares a durable QUORUM queue `queue` bound to the relay's
 * exchange, with `x-single-active-consumer` (one consumer of the group gets the messages, in queue order; the
 * others take over when it goes), `x-delivery-limit` and a dead-letter exchange; consumes with manual acks and
 * `prefetch`, handling deliveries ONE AT A TIME through the inbox (`applyOnce` in `target`) and acking only
 * after that commit. A duplicate (redelivery after a lost ack, a republish by the relay) is acked without
 * running the handler. A handler failure is `nack`ed with requeue; the queue dead-letters the message after
 * `maxDeliveries` deliveries. A lost connection is reopened after `reconnectDelayMs`, for as long as the
 * consumer runs. Resolves once the first connection consumes.
 * @throws {InvalidOption} bad queue name or numbers; the broker's error on the first connection.
 * @see RabbitMQ docs "Consumer Acknowledgements", "Quorum Queues" (delivery limit, single active consumer), "Dead Letter Exchanges".
 */
export async function consumeRabbitMq<DB>(options: RabbitMqConsumerOptions<DB>): Promise<RunningConsumer> {
  const settings = settingsOf(options);
  const counters = emptyConsumerCounters();
  const report = options.onError ?? (() => {});
  let stopping = false;
  let current: AmqpLink | null = null;
  let inHand: Promise<void> = Promise.resolve();

  const inbox = { ...options, inboxName: settings.inboxName, report, counters, broker: 'amqp' as const };
  const handle = (channel: Channel, delivery: ConsumeMessage) =>
    handleDelivery(inbox, {
      consumed: consumedOf(delivery),
      body: () => delivery.content.toString('utf8'),
      ack: () => channel.ack(delivery),
      fail: (_error, consumed) => {
        try {
          channel.nack(delivery, false, true);
        } catch (nackError) {
          report(nackError, consumed);
        }
      },
    });

  const open = async (): Promise<AmqpLink> => {
    const link = await connectAmqp(options.url, `payonce-consumer-${options.queue}`);
    try {
      await declare(link.channel, options.queue, settings);
      await link.channel.consume(
        options.queue,
        (delivery) => {
          // Left unacked when stopping: the broker requeues it when the connection closes.
          if (delivery === null || stopping) return;
          inHand = inHand.then(() => (stopping ? undefined : handle(link.channel, delivery)));
        },
        { noAck: false },
      );
      return link;
    } catch (error) {
      await link.close();
      throw error;
    }
  };

  current = await open();
  const loop = (async () => {
    while (!stopping) {
      const lost = await current?.closed;
      if (stopping) break;
      report(lost ?? new Error('AMQP connection closed'), null);
      current = null;
      while (!stopping && current === null) {
        await new Promise((resolve) => setTimeout(resolve, settings.reconnectDelayMs));
        if (stopping) break;
        current = await open().catch((error: unknown) => {
          report(error, null);
          return null;
        });
      }
    }
  })();

  return {
    get counters() {
      return Object.freeze({ ...counters });
    },
    async stop() {
      stopping = true;
      await inHand;
      const link = current;
      current = null;
      await link?.close();
      await loop;
    },
  };
}
