import type { AckPolicy, DeliverPolicy, JsMsg } from '@nats-io/jetstream';
import { InvalidOption } from '../../core/errors.js';
import { positiveInt, timerMs } from '../../core/options.js';
import { handleDelivery, traceOf } from '../handle-delivery.js';
import { type ConsumedMessage, checkInboxName, emptyConsumerCounters, type RunningConsumer } from '../inbox.js';
import type { InboxConsumerOptions } from '../inbox-consumer-options.js';
import { RELAY_HEADERS } from '../relay-message.js';
import { connectNats, type NatsLink } from './nats-link.js';

/** Options of `consumeJetStream`. Durations in ms. */
export interface JetStreamConsumerOptions<DB> extends InboxConsumerOptions<DB> {
  /** NATS server URL(s). */
  readonly servers: string | readonly string[];
  /** The stream the relay publishes to. */
  readonly stream: string;
  /** Durable pull consumer name (created if missing, updated to these settings otherwise). */
  readonly durable: string;
  /** Subjects to consume. @default `payonce.>` */
  readonly filterSubject?: string;
  /** Inbox namespace: two consumers with one name share "already applied". @default `durable` */
  readonly inboxName?: string;
  /** JetStream `ack_wait`: an unacked delivery is redelivered after this. @default 30_000 */
  readonly ackWaitMs?: number;
  /** JetStream `max_deliver`: after this many failed deliveries the message goes to the dead letter. @default 5 */
  readonly maxDeliver?: number;
  /**
   * JetStream `max_ack_pending`, also the pull batch: deliveries in hand at once. 1 keeps each aggregate's order
   * through redeliveries too (a redelivered or `nak`ed message is delivered again before anything after it);
   * higher is faster, but after a crash or a failed handler later messages may be applied before the redelivery.
   * @default 1
   */
  readonly maxAckPending?: number;
  /** Delay of the redelivery after a failed handler (`nak`). @default 1_000 */
  readonly retryDelayMs?: number;
  /** Subject of dead letters; a stream `<stream>_DEAD_LETTER` capturing it is created. @default `payonce-dead-letter.<stream>.<durable>` */
  readonly deadLetterSubject?: string;
}

const NANOS_PER_MS = 1_000_000;

function consumedOf(msg: JsMsg, stream: string): ConsumedMessage {
  const header = (name: string) => msg.headers?.get(name) || null;
  const sequence = header(RELAY_HEADERS.sequence);
  return Object.freeze({
    id: header('Nats-Msg-Id') ?? `${stream}:${msg.seq}`,
    topic: header(RELAY_HEADERS.topic) ?? msg.subject,
    subject: msg.subject,
    aggregateKey: header(RELAY_HEADERS.aggregate),
    sequence: sequence === null ? null : Number(sequence),
    payload: undefined,
    redelivered: msg.redelivered,
    deliveryCount: msg.info.deliveryCount,
    trace: traceOf(header(RELAY_HEADERS.traceparent), header(RELAY_HEADERS.tracestate)),
  });
}

async function ensureConsumer<DB>(link: NatsLink, options: JetStreamConsumerOptions<DB>, settings: Settings) {
  const config = {
    ack_policy: 'explicit' as AckPolicy,
    ack_wait: settings.ackWaitMs * NANOS_PER_MS,
    max_deliver: settings.maxDeliver,
    max_ack_pending: settings.maxAckPending,
    filter_subject: settings.filterSubject,
  };
  try {
    await link.jsm.consumers.info(options.stream, options.durable);
    await link.jsm.consumers.update(options.stream, options.durable, config);
  } catch (error) {
    if (!/consumer not found/i.test(error instanceof Error ? error.message : String(error))) throw error;
    await link.jsm.consumers.add(options.stream, {
      ...config,
      durable_name: options.durable,
      deliver_policy: 'all' as DeliverPolicy,
    });
  }
  const deadStream = `${options.stream}_DEAD_LETTER`;
  try {
    await link.jsm.streams.info(deadStream);
  } catch {
    await link.jsm.streams.add({ name: deadStream, subjects: [settings.deadLetterSubject] });
  }
}

interface Settings {
  readonly filterSubject: string;
  readonly inboxName: string;
  readonly ackWaitMs: number;
  readonly maxDeliver: number;
  readonly maxAckPending: number;
  readonly retryDelayMs: number;
  readonly deadLetterSubject: string;
}

function settingsOf<DB>(options: JetStreamConsumerOptions<DB>): Settings {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(options.durable))
    throw new InvalidOption('durable', 'must be 1–100 of A-Z a-z 0-9 _ -');
  return {
    filterSubject: options.filterSubject ?? 'payonce.>',
    inboxName: checkInboxName(options.inboxName ?? options.durable),
    ackWaitMs: positiveInt('ackWaitMs', options.ackWaitMs ?? 30_000),
    maxDeliver: positiveInt('maxDeliver', options.maxDeliver ?? 5),
    maxAckPending: positiveInt('maxAckPending', options.maxAckPending ?? 1),
    retryDelayMs: timerMs('retryDelayMs', options.retryDelayMs ?? 1_000),
    deadLetterSubject: options.deadLetterSubject ?? `payonce-dead-letter.${options.stream}.${options.durable}`,
  };
}

/**
 * An idempotent JetStream consumer: a durable pull consumer on `stream` (explicit ack, `ack_wait`,
 * `max_deliver`, `max_ack_pending`) whose deliveries are handled ONE AT A TIME, in stream order, each through
 * the inbox (`applyOnce`: the handler's writes and the inbox row in one transaction of `target`), and acked
 * only after that commit. A duplicate (redelivery, republish, a copy past the duplicate window) is acked
 * without running the handler. A handler failure is `nak`ed with `retryDelayMs`; the failure of the last
 * allowed delivery (`max_deliver`) publishes the message with a `Payonce-Error` header to the dead-letter
 * subject (stream `<stream>_DEAD_LETTER`) and `term`s it. Resolves once the consumer is set up and consuming.
 * @throws {InvalidOption} bad names or numbers; the broker's error when the stream does not exist.
 * @see NATS docs "JetStream Consumers" (AckExplicit, AckWait, MaxDeliver, MaxAckPending); docs/relay.md.
 */
export async function consumeJetStream<DB>(options: JetStreamConsumerOptions<DB>): Promise<RunningConsumer> {
  const settings = settingsOf(options);
  const counters = emptyConsumerCounters();
  const link = await connectNats(options.servers, `payonce-consumer-${options.durable}`);
  try {
    await ensureConsumer(link, options, settings);
  } catch (error) {
    await link.close();
    throw error;
  }
  const consumer = await link.js.consumers.get(options.stream, options.durable);
  const messages = await consumer.consume({ max_messages: settings.maxAckPending });
  const report = options.onError ?? (() => {});

  const deadLetter = async (msg: JsMsg, error: unknown) => {
    const headers = link.headersOf();
    for (const [name, values] of msg.headers ?? []) {
      if (name.toLowerCase() === 'nats-msg-id') continue;
      for (const value of values) headers.append(name, value);
    }
    headers.set('Payonce-Message-Id', consumedOf(msg, options.stream).id);
    headers.set('Payonce-Error', (error instanceof Error ? error.message : String(error)).slice(0, 1_000));
    headers.set('Payonce-Stream-Sequence', String(msg.seq));
    await link.js.publish(settings.deadLetterSubject, msg.data, {
      headers,
      msgID: `dead-${msg.seq}-${options.durable}`,
    });
    // No reason text: nats-server 2.9 does not understand `+TERM <reason>` and would leave the message pending.
    msg.term();
    counters.deadLettered++;
  };

  const inbox = { ...options, inboxName: settings.inboxName, report, counters, broker: 'nats' as const };
  const handle = (msg: JsMsg) =>
    handleDelivery(inbox, {
      consumed: consumedOf(msg, options.stream),
      body: () => msg.string(),
      ack: () => msg.ack(),
      fail: async (error, consumed) => {
        if (msg.info.deliveryCount >= settings.maxDeliver)
          await deadLetter(msg, error).catch((e) => report(e, consumed));
        else msg.nak(settings.retryDelayMs);
      },
    });

  const loop = (async () => {
    for await (const msg of messages) await handle(msg);
  })().catch((error: unknown) => report(error, null));

  return {
    get counters() {
      return Object.freeze({ ...counters });
    },
    async stop() {
      await messages.close().catch(() => {});
      await loop;
      await link.close();
    },
  };
}
