import { InvalidOption } from '../../core/errors.js';
import { timerMs } from '../../core/options.js';
import { MessageUnroutable } from '../message-unroutable.js';
import { RELAY_HEADERS, type RelayMessage, subjectOf } from '../relay-message.js';
import type { PublishAck, RelayPublisher } from '../relay-publisher.js';
import { ensureStream } from './ensure-stream.js';
import { connectNats, type NatsLink } from './nats-link.js';

/** Options of `natsPublisher`. Durations in ms. */
export interface NatsPublisherOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  readonly servers: string | readonly string[];
  /** JetStream stream that stores the messages (created if missing). @default the prefix upper-cased, `.` → `_` (`PAYONCE`) */
  readonly stream?: string;
  /** Subjects are `<subjectPrefix>.<topic>`; the stream captures `<subjectPrefix>.>`. @default `payonce` */
  readonly subjectPrefix?: string;
  /**
   * Duplicate window of a stream this publisher creates. An existing stream is only checked (≥ the relay lease).
   * @default the larger of 2 min (JetStream's default) and twice the relay lease
   */
  readonly duplicateWindowMs?: number;
  /** Wait for one PubAck before the publish counts as failed (outcome unknown). @default 5_000 */
  readonly publishTimeoutMs?: number;
}

function checked(options: NatsPublisherOptions) {
  const subjectPrefix = options.subjectPrefix ?? 'payonce';
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(subjectPrefix)) {
    throw new InvalidOption('subjectPrefix', 'must be dot-separated tokens of A-Z a-z 0-9 _ -');
  }
  const stream = options.stream ?? subjectPrefix.toUpperCase().replaceAll('.', '_');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(stream)) throw new InvalidOption('stream', 'must be 1–200 of A-Z a-z 0-9 _ -');
  const publishTimeoutMs = timerMs('publishTimeoutMs', options.publishTimeoutMs ?? 5_000);
  return { stream, subjectPrefix, publishTimeoutMs };
}

function isNoResponders(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.name === 'NoRespondersError' || /no responders/i.test(e.message)) return true;
  }
  return false;
}

/**
 * A `RelayPublisher` for NATS JetStream (`@nats-io/jetstream` + `@nats-io/transport-node`): publishes each job to
 * `<subjectPrefix>.<topic>` with `Nats-Msg-Id` = the outbox job id and headers `Payonce-Topic`,
 * `Payonce-Aggregate`, `Payonce-Sequence`, and waits for the stream's PubAck; `duplicate: true` in the ack means
 * the stream dropped a republish inside its duplicate window. `prepare` creates the stream (subjects
 * `<subjectPrefix>.>`) or checks that an existing one captures them with `duplicate_window` ≥ the relay lease.
 * The connection reconnects forever; a publish during an outage fails after `publishTimeoutMs` and is retried
 * by the relay. No stream for the subject → `MessageUnroutable`.
 * @throws {InvalidOption} bad stream name, subject prefix or timeout (at once); `prepare` for a stream that does
 *   not fit (see `ensureStream`).
 * @see NATS docs "Message Deduplication", "JetStream publishing".
 */
export function natsPublisher(options: NatsPublisherOptions): RelayPublisher & { readonly stream: string } {
  const { stream, subjectPrefix, publishTimeoutMs } = checked(options);
  let link: Promise<NatsLink> | null = null;
  const open = () => {
    link ??= connectNats(options.servers, 'payonce-relay');
    return link;
  };
  return {
    broker: 'nats',
    stream,
    async prepare(leaseMs: number): Promise<void> {
      const { jsm } = await open();
      await ensureStream(jsm, {
        name: stream,
        subject: `${subjectPrefix}.>`,
        duplicateWindowMs: options.duplicateWindowMs ?? Math.max(120_000, 2 * leaseMs),
        minDuplicateWindowMs: leaseMs,
      });
    },
    async publish(message: RelayMessage): Promise<PublishAck> {
      const { js, headersOf } = await open();
      const subject = subjectOf(subjectPrefix, message.topic);
      const headers = headersOf();
      headers.set(RELAY_HEADERS.topic, message.topic);
      if (message.aggregateKey !== null) headers.set(RELAY_HEADERS.aggregate, message.aggregateKey);
      if (message.sequence !== null) headers.set(RELAY_HEADERS.sequence, String(message.sequence));
      headers.set(RELAY_HEADERS.createdAt, String(message.createdAtMs));
      if (message.trace) {
        headers.set(RELAY_HEADERS.traceparent, message.trace.traceparent);
        if (message.trace.tracestate) headers.set(RELAY_HEADERS.tracestate, message.trace.tracestate);
      }
      try {
        const ack = await js.publish(subject, message.payload, {
          msgID: message.id,
          headers,
          timeout: publishTimeoutMs,
          retries: 0,
        });
        return { duplicate: ack.duplicate };
      } catch (error) {
        if (isNoResponders(error)) throw new MessageUnroutable(message.id, subject, 'no JetStream stream captures it');
        throw error;
      }
    },
    async close(): Promise<void> {
      const current = link;
      link = null;
      if (current) await (await current).close();
    },
  };
}
