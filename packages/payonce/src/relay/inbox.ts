import type { Transaction } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import { runEffectOnce } from '../outbox/effect-ledger.js';
import type { SqlTarget } from '../outbox/sql-transaction.js';
import type { TraceHeaders } from './relay-message.js';

/** A message as a consumer handler sees it, whatever the broker. */
export interface ConsumedMessage {
  /** The message id: the outbox job id set by the relay (`Nats-Msg-Id`, AMQP `message_id`). The inbox key. */
  readonly id: string;
  /** Outbox topic (`Payonce-Topic` header, AMQP `type`), or the subject when absent. */
  readonly topic: string;
  /** NATS subject or AMQP routing key. */
  readonly subject: string;
  /** `Payonce-Aggregate` header, or `null`. */
  readonly aggregateKey: string | null;
  /** `Payonce-Sequence` header (outbox order), or `null`. */
  readonly sequence: number | null;
  /** The body parsed as JSON. */
  readonly payload: unknown;
  /** The broker says it delivered this message before (JetStream redelivery, AMQP `redelivered`). */
  readonly redelivered: boolean;
  /** Deliveries so far including this one, when the broker counts them (JetStream; quorum queues), else `null`. */
  readonly deliveryCount: number | null;
  /** The W3C trace context the message carried (`traceparent`/`tracestate` headers), or `null`/absent. */
  readonly trace?: TraceHeaders | null;
}

/**
 * Applies one message's effect: `handler(message, trx)` runs inside ONE transaction of the consumer's database
 * together with the inbox row. Must only write to that database (the transaction may be retried).
 */
export type ConsumerHandler<DB> = (message: ConsumedMessage, trx: Transaction<DB>) => Promise<void>;

/** What the inbox did with one delivery: ran the handler now, or found the message id already recorded. */
export type InboxOutcome = 'applied' | 'duplicate';

/** Counters of one running consumer since it started. */
export interface ConsumerCounters {
  /** Deliveries whose effect was applied (committed) now. */
  applied: number;
  /** Deliveries whose message id the inbox already held (redelivery or republish): acked, nothing run. */
  duplicates: number;
  /** Deliveries whose handler threw: negatively acknowledged for a later redelivery. */
  failed: number;
  /** Messages sent to the dead letter after their last allowed delivery failed. */
  deadLettered: number;
}

/** Zeroed consumer counters. */
export function emptyConsumerCounters(): ConsumerCounters {
  return { applied: 0, duplicates: 0, failed: 0, deadLettered: 0 };
}

/** Longest inbox name: the inbox key `inbox:<name>:<message id>` must fit the 200-character effect key. */
const MAX_INBOX_NAME = 120;

/** @throws {InvalidOption} `inboxName` empty or over 120 characters. */
export function checkInboxName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_INBOX_NAME) {
    throw new InvalidOption('inboxName', `must be a non-empty string of at most ${MAX_INBOX_NAME} characters`);
  }
  return name;
}

/**
 * The inbox: runs `handler` for `message` at most once per (`inboxName`, message id), through the effect ledger
 * (`runEffectOnce` with key `inbox:<inboxName>:<id>`) in the consumer's own database, so the handler's writes
 * and the inbox row commit together. A redelivery (consumer died before its ack), a republish by the relay
 * (relay died before marking the job sent), or a copy past JetStream's duplicate window all answer
 * `duplicate` for as long as the effect ledger keeps the key (it never purges). Ack the broker only after this
 * resolved. @throws whatever `handler` throws, after the rollback (nothing recorded); {InvalidOption} for a
 * message id that is empty or over 64 characters.
 * @see docs/relay.md "The guarantee"; docs/design.md §7 "Effect ledger".
 */
export async function applyOnce<DB>(
  target: SqlTarget<DB>,
  inboxName: string,
  message: ConsumedMessage,
  handler: ConsumerHandler<DB>,
): Promise<InboxOutcome> {
  if (message.id.length === 0 || message.id.length > 64) {
    throw new InvalidOption('message id', 'must be 1–64 characters (the relay sends the outbox job id)');
  }
  const attributes = { 'messaging.message.id': message.id, 'payonce.inbox.name': inboxName };
  return await inSpan('payonce.relay.inbox', { attributes }, async (span) => {
    const key = `inbox:${inboxName}:${message.id}`;
    const result = await runEffectOnce(target, key, (trx) => handler(message, trx), {
      jobId: message.id.length <= 36 ? message.id : null,
    });
    const outcome = result.kind === 'applied' ? 'applied' : 'duplicate';
    span.set(A.result, outcome);
    return outcome;
  });
}

/** Parses a JSON body. @throws {InvalidOption} when it is not JSON (the delivery fails and ends in the dead letter). */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidOption('payload', 'message body is not JSON');
  }
}

/** Running consumer: its counters, and `stop()` (finishes the message in hand, closes the connection). */
export interface RunningConsumer {
  readonly counters: Readonly<ConsumerCounters>;
  stop(): Promise<void>;
}
