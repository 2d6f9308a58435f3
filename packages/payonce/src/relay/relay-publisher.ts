import type { RelayMessage } from './relay-message.js';

/** The broker's answer to one publish: accepted and stored; `duplicate` when the broker dropped it as a republish. */
export interface PublishAck {
  /** True when the broker recognised the message id and did not store it again (JetStream duplicate window). */
  readonly duplicate: boolean;
}

/**
 * Hands messages to one broker and resolves only once the broker has taken responsibility for the message
 * (JetStream PubAck, RabbitMQ publisher confirm). `OutboxRelay` marks a job sent only after that.
 * `publish` rejects with `MessageUnroutable` when the broker accepted nothing (no stream for the subject,
 * no queue bound for the routing key) and with any other error when the outcome is unknown (timeout,
 * connection lost): the relay then publishes again later, and the message id lets the broker or the consumer's
 * inbox drop the copy.
 */
export interface RelayPublisher {
  /** `nats` (JetStream) or `amqp` (RabbitMQ). */
  readonly broker: 'nats' | 'amqp';
  /**
   * Checks the broker side the relay needs (stream, exchange) before the first publish.
   * @param leaseMs the relay's lease: a JetStream stream's duplicate window must be at least this long.
   */
  prepare(leaseMs: number): Promise<void>;
  /** Publishes one message and waits for the broker's ack. */
  publish(message: RelayMessage): Promise<PublishAck>;
  /** Closes the broker connection (pending publishes reject). */
  close(): Promise<void>;
}
