import type { SqlTarget } from '../outbox/sql-transaction.js';
import type { ConsumedMessage, ConsumerHandler, InboxOutcome } from './inbox.js';

/**
 * The options every idempotent relay consumer takes, whatever its broker (`consumeJetStream`,
 * `consumeRabbitMq`): where the inbox and the handler's writes live, the handler, and the two hooks.
 * @see docs/relay.md "The guarantee".
 */
export interface InboxConsumerOptions<DB> {
  /** The consumer's SQL database (migrated: `payonce_effects`), where the inbox and the handler's writes live. */
  readonly target: SqlTarget<DB>;
  /** Runs one message's effect inside the inbox transaction. */
  readonly handler: ConsumerHandler<DB>;
  /** After the inbox transaction committed and BEFORE the ack (observability; the relay storm kills here). */
  readonly onCommitted?: (message: ConsumedMessage, outcome: InboxOutcome) => void | Promise<void>;
  /** A handler failure or a connection or broker error (the consumer goes on). */
  readonly onError?: (error: unknown, message: ConsumedMessage | null) => void;
}
