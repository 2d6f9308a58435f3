import { InvalidOption } from '../../core/errors.js';
import { timerMs } from '../../core/options.js';
import { MessageUnroutable } from '../message-unroutable.js';
import { RELAY_HEADERS, type RelayMessage, subjectOf } from '../relay-message.js';
import type { PublishAck, RelayPublisher } from '../relay-publisher.js';
import { type AmqpLink, connectAmqp } from './amqp-link.js';

/** Options of `amqpPublisher`. Durations in ms. */
export interface AmqpPublisherOptions {
  /** Broker URL, e.g. `amqp://guest:guest@127.0.0.1:5672`. */
  readonly url: string;
  /** Durable topic exchange the messages go to (declared by `prepare`). @default the subject prefix (`payonce`) */
  readonly exchange?: string;
  /** Routing keys are `<subjectPrefix>.<topic>` (`''`: the bare topic). @default `payonce` */
  readonly subjectPrefix?: string;
  /** Wait for one publisher confirm before the publish counts as failed (outcome unknown). @default 5_000 */
  readonly publishTimeoutMs?: number;
}

interface Pending {
  readonly resolve: (ack: PublishAck) => void;
  readonly reject: (error: unknown) => void;
  returned: boolean;
}

/**
 * A `RelayPublisher` for RabbitMQ (`amqplib`): a confirm channel, each job published `persistent` with
 * `message_id` = the outbox job id, `type` = the topic, headers `Payonce-Topic` / `Payonce-Aggregate` /
 * `Payonce-Sequence`, `mandatory`, to the durable topic exchange `exchange` under routing key
 * `<subjectPrefix>.<topic>`. It resolves on the broker's confirm (basic.ack) unless the broker first returned
 * the message (basic.return: no queue bound) — then it rejects with `MessageUnroutable`, so the job is not
 * "sent". A basic.nack, a lost connection or no confirm within `publishTimeoutMs` rejects (outcome unknown;
 * the relay retries). The connection is reopened on the next publish after it closed. RabbitMQ classic and
 * quorum queues do not deduplicate: a republish reaches the consumer, whose inbox drops it.
 * @throws {InvalidOption} bad exchange, prefix or timeout (at once).
 * @see RabbitMQ docs "Consumer Acknowledgements and Publisher Confirms", "Publishers: mandatory flag".
 */
export function amqpPublisher(options: AmqpPublisherOptions): RelayPublisher {
  const subjectPrefix = options.subjectPrefix ?? 'payonce';
  const exchange = options.exchange ?? (subjectPrefix === '' ? 'payonce' : subjectPrefix);
  const publishTimeoutMs = timerMs('publishTimeoutMs', options.publishTimeoutMs ?? 5_000);
  if (exchange.length === 0 || exchange.length > 255) throw new InvalidOption('exchange', 'must be 1–255 characters');
  let link: Promise<AmqpLink> | null = null;
  const pending = new Map<string, Pending>();

  const open = (): Promise<AmqpLink> => {
    if (link) return link;
    const opening = connectAmqp(options.url, 'payonce-relay').then(async (opened) => {
      opened.channel.on('return', (returned) => {
        const id = returned.properties.messageId as string | undefined;
        const entry = id === undefined ? undefined : pending.get(id);
        if (entry) entry.returned = true;
      });
      await opened.channel.assertExchange(exchange, 'topic', { durable: true });
      void opened.closed.then((error) => {
        if (link === opening) link = null;
        for (const entry of [...pending.values()]) entry.reject(error ?? new Error('AMQP connection closed'));
      });
      return opened;
    });
    opening.catch(() => {
      if (link === opening) link = null;
    });
    link = opening;
    return opening;
  };

  return {
    broker: 'amqp',
    async prepare(): Promise<void> {
      await open();
    },
    async publish(message: RelayMessage): Promise<PublishAck> {
      const { channel } = await open();
      const routingKey = subjectOf(subjectPrefix, message.topic);
      const headers: Record<string, string> = { [RELAY_HEADERS.topic]: message.topic };
      if (message.aggregateKey !== null) headers[RELAY_HEADERS.aggregate] = message.aggregateKey;
      if (message.sequence !== null) headers[RELAY_HEADERS.sequence] = String(message.sequence);
      if (message.trace) {
        headers[RELAY_HEADERS.traceparent] = message.trace.traceparent;
        if (message.trace.tracestate) headers[RELAY_HEADERS.tracestate] = message.trace.tracestate;
      }
      return new Promise<PublishAck>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const settle = (fn: () => void) => {
          clearTimeout(timer);
          pending.delete(message.id);
          fn();
        };
        const entry: Pending = {
          returned: false,
          resolve: (ack) => settle(() => resolve(ack)),
          reject: (error) => settle(() => reject(error)),
        };
        pending.set(message.id, entry);
        timer = setTimeout(
          () => entry.reject(new Error(`no publisher confirm within ${publishTimeoutMs} ms`)),
          publishTimeoutMs,
        );
        try {
          channel.publish(
            exchange,
            routingKey,
            Buffer.from(message.payload, 'utf8'),
            {
              persistent: true,
              mandatory: true,
              messageId: message.id,
              type: message.topic,
              contentType: 'application/json',
              timestamp: Math.floor(message.createdAtMs / 1000),
              headers,
            },
            (error: unknown) => {
              if (error) entry.reject(error instanceof Error ? error : new Error(`publish nacked: ${String(error)}`));
              else if (entry.returned) {
                entry.reject(new MessageUnroutable(message.id, routingKey, `no queue bound on exchange ${exchange}`));
              } else entry.resolve({ duplicate: false });
            },
          );
        } catch (error) {
          entry.reject(error);
        }
      });
    },
    async close(): Promise<void> {
      const current = link;
      link = null;
      if (current) await (await current.catch(() => null))?.close();
    },
  };
}
