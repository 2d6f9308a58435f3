import { randomBytes } from 'node:crypto';
import { importPeer } from 'payonce/internal/core/import-peer.js';
import type { SqlTarget } from 'payonce/internal/outbox/sql-transaction.js';
import { consumeRabbitMq } from 'payonce/internal/relay/amqp/amqp-consumer.js';
import type { BrokerTarget } from 'payonce/internal/relay/broker-url.js';
import type { ConsumedMessage, ConsumerHandler, InboxOutcome, RunningConsumer } from 'payonce/internal/relay/inbox.js';
import { consumeJetStream } from 'payonce/internal/relay/nats/nats-consumer.js';
import { connectNats } from 'payonce/internal/relay/nats/nats-link.js';
import { startOwnNatsServer } from './nats-server-process.js';
import { startTcpProxy } from './tcp-proxy.js';

/** How a storm consumer connects (JSON-serialisable, so a consumer child process gets it on its command line). */
export interface ConsumerSpec {
  readonly kind: 'nats' | 'amqp';
  readonly url: string;
  readonly stream: string;
  readonly durable: string;
  readonly subjectPrefix: string;
  readonly exchange: string;
  readonly queue: string;
  readonly ackWaitMs: number;
  readonly inboxName: string;
}

/** The broker side of one scenario: unique names, optionally its own NATS server or a cuttable TCP proxy. */
export interface StormBroker {
  readonly kind: 'nats' | 'amqp';
  /** What relays publish to. */
  readonly publish: BrokerTarget;
  readonly consumer: ConsumerSpec;
  /** Restart the broker (own NATS server) or cut its connections (RabbitMQ proxy); `null` when not arranged. */
  readonly restart: (() => Promise<void>) | null;
  /** Messages the JetStream stream holds (NATS), `null` for RabbitMQ. */
  storedMessages(): Promise<number | null>;
  /** Deletes stream / queues / exchanges and stops what was started. */
  cleanup(): Promise<void>;
}

/** Options of `openStormBroker`. */
export interface StormBrokerOptions {
  /** Arrange a restart: NATS → own `nats-server -js`; RabbitMQ → a TCP proxy whose connections are cut. */
  readonly restartable?: boolean;
  /** Duplicate window of the JetStream stream. @default 120_000 */
  readonly duplicateWindowMs?: number;
  /** AckWait of the JetStream consumer. @default 1_500 */
  readonly ackWaitMs?: number;
}

function token(): string {
  return randomBytes(5).toString('hex');
}

async function deleteNatsNames(url: string, stream: string): Promise<void> {
  const link = await connectNats(url, 'payonce-relay-storm-cleanup');
  try {
    for (const name of [stream, `${stream}_DEAD_LETTER`]) await link.jsm.streams.delete(name).catch(() => false);
  } finally {
    await link.close();
  }
}

/**
 * Deletes what a relay consumer over AMQP declared: the queue and its dead-letter queue, the relay's exchange and the
 * dead-letter exchange (named after the queue, as `consumeRabbitMq` declares it). Needs `amqplib`.
 */
export async function deleteAmqpNames(url: string, exchange: string, queue: string): Promise<void> {
  const amqp = await importPeer('amqplib', 'payonce storm', () => import('amqplib'));
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await channel.deleteQueue(`${queue}.dead-letter`);
    await channel.deleteExchange(exchange);
    await channel.deleteExchange(`${queue}.dead-letter`);
  } finally {
    await connection.close().catch(() => {});
  }
}

async function natsBroker(baseUrl: string, id: string, options: StormBrokerOptions): Promise<StormBroker> {
  const own = options.restartable ? await startOwnNatsServer() : null;
  const url = own?.url ?? baseUrl;
  const stream = `PAYONCE_STORM_${id}`;
  const subjectPrefix = `payonce-storm.${id}`;
  return {
    kind: 'nats',
    publish: {
      url,
      stream,
      subjectPrefix,
      duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
      publishTimeoutMs: 2_000,
    },
    consumer: {
      kind: 'nats',
      url,
      stream,
      durable: `storm-${id}`,
      subjectPrefix,
      exchange: '',
      queue: '',
      ackWaitMs: options.ackWaitMs ?? 1_500,
      inboxName: `storm-${id}`,
    },
    restart: own ? () => own.restart() : null,
    async storedMessages() {
      const link = await connectNats(url, 'payonce-relay-storm-check');
      try {
        return (await link.jsm.streams.info(stream)).state.messages;
      } finally {
        await link.close();
      }
    },
    async cleanup() {
      if (own) await own.stop();
      else await deleteNatsNames(url, stream);
    },
  };
}

async function amqpBroker(baseUrl: string, id: string, options: StormBrokerOptions): Promise<StormBroker> {
  const base = new URL(baseUrl);
  const proxy = options.restartable ? await startTcpProxy(base.hostname, Number(base.port || 5672)) : null;
  const viaProxy = new URL(baseUrl);
  if (proxy) viaProxy.port = String(proxy.port);
  const url = viaProxy.toString().replace(/\/$/, '');
  const exchange = `payonce-storm-${id}`;
  const queue = `payonce-storm-${id}`;
  const subjectPrefix = `storm.${id}`;
  return {
    kind: 'amqp',
    publish: { url, exchange, subjectPrefix, publishTimeoutMs: 2_000 },
    consumer: {
      kind: 'amqp',
      url,
      stream: '',
      durable: '',
      subjectPrefix,
      exchange,
      queue,
      ackWaitMs: 0,
      inboxName: `storm-${id}`,
    },
    restart: proxy ? () => proxy.cut(1_000) : null,
    async storedMessages() {
      return null;
    },
    async cleanup() {
      await proxy?.close();
      await deleteAmqpNames(baseUrl, exchange, queue);
    },
  };
}

/** Sets up the broker names (and server or proxy) of one scenario on the broker of `brokerUrl`. */
export function openStormBroker(kind: 'nats' | 'amqp', brokerUrl: string, options: StormBrokerOptions = {}) {
  const id = token();
  return kind === 'nats' ? natsBroker(brokerUrl, id, options) : amqpBroker(brokerUrl, id, options);
}

/** Hooks of a storm consumer. */
export interface StormConsumerHooks {
  readonly onCommitted?: (message: ConsumedMessage, outcome: InboxOutcome) => void | Promise<void>;
}

/** Starts the idempotent consumer `spec` describes, on `target`, running `handler` through the inbox. */
export function startStormConsumer<DB>(
  spec: ConsumerSpec,
  target: SqlTarget<DB>,
  handler: ConsumerHandler<DB>,
  hooks: StormConsumerHooks = {},
): Promise<RunningConsumer> {
  if (spec.kind === 'nats') {
    return consumeJetStream({
      servers: spec.url,
      stream: spec.stream,
      durable: spec.durable,
      filterSubject: `${spec.subjectPrefix}.>`,
      target,
      handler,
      inboxName: spec.inboxName,
      ackWaitMs: spec.ackWaitMs,
      maxDeliver: 50,
      retryDelayMs: 200,
      onCommitted: hooks.onCommitted,
    });
  }
  return consumeRabbitMq({
    url: spec.url,
    exchange: spec.exchange,
    queue: spec.queue,
    bindingKeys: [`${spec.subjectPrefix}.#`],
    target,
    handler,
    inboxName: spec.inboxName,
    maxDeliveries: 50,
    reconnectDelayMs: 200,
    onCommitted: hooks.onCommitted,
  });
}
