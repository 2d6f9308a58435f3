/**
 * `payonce/relay`: the outbox relay to a broker (`OutboxRelay`, issue #14) with its NATS JetStream
 * (`natsPublisher`) and RabbitMQ (`amqpPublisher`) publishers, and the idempotent consumers
 * (`consumeJetStream`, `consumeRabbitMq`) that apply each message once through the inbox in the consumer's
 * database. The broker clients (`@nats-io/jetstream` + `@nats-io/transport-node`, `amqplib`) are optional
 * peers, loaded only when used. @see docs/relay.md.
 */

export { consumeRabbitMq, type RabbitMqConsumerOptions } from './amqp/amqp-consumer.js';
export { type AmqpPublisherOptions, amqpPublisher } from './amqp/amqp-publisher.js';
export { type BrokerTarget, brokerOf, publisherForUrl } from './broker-url.js';
export {
  applyOnce,
  type ConsumedMessage,
  type ConsumerCounters,
  type ConsumerHandler,
  type InboxOutcome,
  type RunningConsumer,
} from './inbox.js';
export type { InboxConsumerOptions } from './inbox-consumer-options.js';
export { MessageUnroutable } from './message-unroutable.js';
export { consumeJetStream, type JetStreamConsumerOptions } from './nats/nats-consumer.js';
export { type NatsPublisherOptions, natsPublisher } from './nats/nats-publisher.js';
export { OutboxRelay, type RelayRound } from './outbox-relay.js';
export type { OutboxRelayOptions } from './outbox-relay-options.js';
export { RELAY_HEADERS, type RelayMessage, subjectOf, type TraceHeaders } from './relay-message.js';
export type { RelayCounters } from './relay-metrics.js';
export { registerRelayMetrics } from './relay-prometheus.js';
export type { PublishAck, RelayPublisher } from './relay-publisher.js';
