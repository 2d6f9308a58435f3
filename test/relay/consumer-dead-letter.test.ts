import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAmqpNames } from '../../packages/cli/src/relay-storm/storm-broker.js';
import { effectApplied } from '../../packages/payonce/src/outbox/effect-ledger.js';
import { consumeRabbitMq } from '../../packages/payonce/src/relay/amqp/amqp-consumer.js';
import { amqpPublisher } from '../../packages/payonce/src/relay/amqp/amqp-publisher.js';
import type { ConsumedMessage, RunningConsumer } from '../../packages/payonce/src/relay/inbox.js';
import { consumeJetStream } from '../../packages/payonce/src/relay/nats/nats-consumer.js';
import { natsPublisher } from '../../packages/payonce/src/relay/nats/nats-publisher.js';
import { OutboxRelay } from '../../packages/payonce/src/relay/outbox-relay.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { enqueueMany, uniqueName } from './relay-fixtures.js';

const NATS = 'nats://127.0.0.1:4222';
const AMQP = 'amqp://guest:guest@127.0.0.1:5672';

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A handler that always fails for position 2 of agg-0, and counts its calls per message. */
function poisonHandler(calls: Map<string, number>) {
  return async (message: ConsumedMessage) => {
    calls.set(message.id, (calls.get(message.id) ?? 0) + 1);
    const payload = message.payload as { aggregate: string; position: number };
    if (payload.aggregate === 'agg-0' && payload.position === 2) throw new Error('poison placeholder');
  };
}

describe('idempotent consumers: a message that always fails goes to the dead letter after the delivery limit', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
  });
  afterAll(async () => {
    await backend.drop();
  });

  it('JetStream: max_deliver deliveries, then the dead-letter stream holds it; the others are applied', async () => {
    const prefix = uniqueName('dl');
    const stream = prefix.toUpperCase();
    const topic = uniqueName('t');
    const publisher = natsPublisher({ servers: NATS, subjectPrefix: prefix });
    const relay = new OutboxRelay(store, publisher, { topics: [topic] });
    const calls = new Map<string, number>();
    let consumer: RunningConsumer | null = null;
    const nc = await connect({ servers: NATS });
    const jsm = await jetstreamManager(nc);
    try {
      await relay.prepare();
      await enqueueMany(store, topic, 2, 3);
      expect(await relay.drain()).toBe(6);
      consumer = await consumeJetStream({
        servers: NATS,
        stream,
        durable: 'dl',
        filterSubject: `${prefix}.>`,
        target: store,
        inboxName: `dl-${prefix}`,
        maxDeliver: 3,
        retryDelayMs: 20,
        handler: poisonHandler(calls),
      });
      await until(() => consumer!.counters.deadLettered === 1 && consumer!.counters.applied === 5).catch((e) => {
        throw new Error(`${e} ${JSON.stringify(consumer?.counters)} ${JSON.stringify([...calls.values()])}`);
      });
      expect(consumer.counters.failed).toBe(3);
      expect([...calls.values()].sort()).toEqual([1, 1, 1, 1, 1, 3]);
      const dead = await jsm.streams.info(`${stream}_DEAD_LETTER`);
      expect(dead.state.messages).toBe(1);
      const poisoned = [...calls.entries()].find(([, n]) => n === 3)?.[0] ?? '';
      expect(await effectApplied(store, `inbox:dl-${prefix}:${poisoned}`)).toBe(false);
    } finally {
      await consumer?.stop();
      await publisher.close();
      for (const name of [stream, `${stream}_DEAD_LETTER`]) await jsm.streams.delete(name).catch(() => false);
      await nc.close();
    }
  });

  it('RabbitMQ: the quorum queue dead-letters it after maxDeliveries; the others are applied', async () => {
    const prefix = uniqueName('dl');
    const queue = uniqueName('dl-q-');
    const topic = uniqueName('t');
    const publisher = amqpPublisher({ url: AMQP, subjectPrefix: prefix });
    const relay = new OutboxRelay(store, publisher, { topics: [topic] });
    const calls = new Map<string, number>();
    let consumer: RunningConsumer | null = null;
    try {
      consumer = await consumeRabbitMq({
        url: AMQP,
        exchange: prefix,
        queue,
        bindingKeys: [`${prefix}.#`],
        target: store,
        maxDeliveries: 3,
        handler: poisonHandler(calls),
      });
      await relay.prepare();
      await enqueueMany(store, topic, 2, 3);
      expect(await relay.drain()).toBe(6);
      await until(() => consumer!.counters.applied === 5 && consumer!.counters.failed === 3);
      expect([...calls.values()].sort()).toEqual([1, 1, 1, 1, 1, 3]);
      const connection = await amqp.connect(AMQP);
      const channel = await connection.createChannel();
      await until(async () => (await channel.checkQueue(`${queue}.dead-letter`)).messageCount === 1);
      await connection.close();
    } finally {
      await consumer?.stop();
      await publisher.close();
      await deleteAmqpNames(AMQP, prefix, queue);
    }
  });
});
