import { InvalidOption } from '../core/errors.js';
import { amqpPublisher } from './amqp/amqp-publisher.js';
import { natsPublisher } from './nats/nats-publisher.js';
import type { RelayPublisher } from './relay-publisher.js';

/** Which broker a URL names: `nats://` / `tls://` → JetStream, `amqp://` / `amqps://` → RabbitMQ. */
export function brokerOf(url: string): 'nats' | 'amqp' {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === 'nats' || scheme === 'tls') return 'nats';
  if (scheme === 'amqp' || scheme === 'amqps') return 'amqp';
  throw new InvalidOption('broker', `${url.replace(/\/\/[^@/]*@/, '//***@')} is not a nats:// or amqp:// URL`);
}

/** Options of `publisherForUrl`: where messages go on either broker. */
export interface BrokerTarget {
  /** `nats://host:port` or `amqp://user:pass@host:port/vhost`. */
  readonly url: string;
  /** Subjects / routing keys are `<subjectPrefix>.<topic>`. @default `payonce` */
  readonly subjectPrefix?: string;
  /** JetStream stream (NATS only). @default the prefix upper-cased, `.` → `_` (`PAYONCE`) */
  readonly stream?: string;
  /** Topic exchange (RabbitMQ only). @default the subject prefix (`payonce`) */
  readonly exchange?: string;
  /** See the publishers. @default 5_000 */
  readonly publishTimeoutMs?: number;
  /** Duplicate window of a stream the NATS publisher creates. @default max(2 min, 2 × lease) */
  readonly duplicateWindowMs?: number;
}

/**
 * The `RelayPublisher` for a broker URL: `natsPublisher` for `nats://`, `amqpPublisher` for `amqp://`.
 * @throws {InvalidOption} another scheme, or a bad option of the chosen publisher.
 */
export function publisherForUrl(target: BrokerTarget): RelayPublisher {
  const common = { subjectPrefix: target.subjectPrefix, publishTimeoutMs: target.publishTimeoutMs };
  if (brokerOf(target.url) === 'nats') {
    return natsPublisher({
      ...common,
      servers: target.url,
      stream: target.stream,
      duplicateWindowMs: target.duplicateWindowMs,
    });
  }
  return amqpPublisher({ ...common, url: target.url, exchange: target.exchange });
}
