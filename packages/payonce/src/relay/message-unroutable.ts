import { PayonceError } from '../core/errors.js';

/**
 * The broker accepted the message but could route it nowhere (RabbitMQ `basic.return` of a mandatory publish:
 * no queue bound for the routing key; JetStream: no stream captures the subject). Nothing was stored, so the
 * relay does not mark the job sent: it retries with backoff, then moves it to the outbox dead letter.
 * @see RabbitMQ "Publishers: mandatory flag"; NATS JetStream "no responders" on a subject without a stream.
 */
export class MessageUnroutable extends PayonceError {
  readonly code = 'MESSAGE_UNROUTABLE';
  /** The outbox job id of the message. */
  readonly messageId: string;
  /** Subject or routing key it was published to. */
  readonly subject: string;
  constructor(messageId: string, subject: string, reason: string) {
    super(`message ${messageId} to ${subject} is unroutable: ${reason}`);
    this.messageId = messageId;
    this.subject = subject;
  }
}
