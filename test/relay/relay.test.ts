import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAmqpNames } from '../../packages/cli/src/relay-storm/storm-broker.js';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { consumeRabbitMq } from '../../packages/payonce/src/relay/amqp/amqp-consumer.js';
import { amqpPublisher } from '../../packages/payonce/src/relay/amqp/amqp-publisher.js';
import type { RunningConsumer } from '../../packages/payonce/src/relay/inbox.js';
import { consumeJetStream } from '../../packages/payonce/src/relay/nats/nats-consumer.js';
import { natsPublisher } from '../../packages/payonce/src/relay/nats/nats-publisher.js';
import { OutboxRelay } from '../../packages/payonce/src/relay/outbox-relay.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import {
  createEffectTable,
  effectRows,
  enqueueMany,
  inAggregateOrder,
  uniqueName,
  writeEffect,
} from './relay-fixtures.js';

const NATS = 'nats://127.0.0.1:4222';
const AMQP = 'amqp://guest:guest@127.0.0.1:5672';

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const dialect of sqlDialectsFromEnv())
  describe(`OutboxRelay on ${dialect}`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createEffectTable(store);
    });
    afterAll(async () => {
      await backend.drop();
    });

    it('NATS: publishes in aggregate order, a republish is a broker duplicate, the consumer applies each once', async () => {
      const stream = uniqueName('RELAYT');
      const prefix = uniqueName('rt');
      const topic = uniqueName('topic.');
      const publisher = natsPublisher({ servers: NATS, stream, subjectPrefix: prefix });
      const relay = new OutboxRelay(store, publisher, { topics: [topic], batchSize: 7, leaseMs: 5_000 });
      let consumer: RunningConsumer | null = null;
      const nc = await connect({ servers: NATS });
      const jsm = await jetstreamManager(nc);
      try {
        await relay.prepare();
        const enqueuedFrom = Date.now();
        await enqueueMany(store, topic, 3, 10);
        const enqueuedBy = Date.now();
        // The lag is the age of the oldest unsent job by the relay's clock (one a minute ahead here), 0 once sent.
        const atMs = enqueuedBy + 60_000;
        const lag = await new OutboxRelay(store, publisher, { topics: [topic], clock: new ManualClock(atMs) }).lagMs();
        expect(lag).toBeGreaterThanOrEqual(atMs - enqueuedBy);
        expect(lag).toBeLessThanOrEqual(atMs - enqueuedFrom);
        expect(await relay.drain()).toBe(30);
        expect(await relay.lagMs()).toBe(0);
        expect(relay.counters).toMatchObject({ published: 30, duplicates: 0 });
        consumer = await consumeJetStream({
          servers: NATS,
          stream,
          durable: 'c1',
          filterSubject: `${prefix}.>`,
          target: store,
          inboxName: `nats-${stream}`,
          handler: (message, trx) => writeEffect(trx, message),
        });
        await until(async () => consumer!.counters.applied === 30);
        // Re-drive every job: the stream drops the republish (same Nats-Msg-Id inside the window).
        const outbox = new Outbox(store);
        const jobs = (await effectRows(store)).map((row) => row.id);
        for (const id of jobs) expect((await outbox.requeue(id)).kind).toBe('requeued');
        expect(await relay.drain()).toBe(30);
        expect(relay.counters.duplicates).toBe(30);
        const info = await jsm.streams.info(stream);
        expect(info.state.messages).toBe(30);
        const rows = await effectRows(store);
        expect(rows).toHaveLength(30);
        expect(new Set(rows.map((r) => r.id)).size).toBe(30);
        expect(inAggregateOrder(rows)).toBe(true);
        expect(await relay.lagMs()).toBe(0);
      } finally {
        await consumer?.stop();
        await publisher.close();
        await jsm.streams.delete(stream).catch(() => {});
        await jsm.streams.delete(`${stream}_DEAD_LETTER`).catch(() => {});
        await nc.close();
      }
    });

    it('NATS: an existing stream whose duplicate window is shorter than the lease is refused', async () => {
      const stream = uniqueName('RELAYW');
      const prefix = uniqueName('rw');
      const nc = await connect({ servers: NATS });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], duplicate_window: 1_000 * 1_000_000 });
      const publisher = natsPublisher({ servers: NATS, stream, subjectPrefix: prefix });
      try {
        await expect(new OutboxRelay(store, publisher, { topics: ['x'], leaseMs: 5_000 }).prepare()).rejects.toThrow(
          InvalidOption,
        );
        await expect(publisher.prepare(1_000)).resolves.toBeUndefined();
      } finally {
        await publisher.close();
        await jsm.streams.delete(stream);
        await nc.close();
      }
    });

    it('RabbitMQ: unroutable is not sent; bound, it is confirmed and consumed once, a republish absorbed by the inbox', async () => {
      const exchange = uniqueName('relay-test-');
      const queue = uniqueName('relay-test-q-');
      const topic = uniqueName('topic.');
      const publisher = amqpPublisher({ url: AMQP, exchange, subjectPrefix: 'p' });
      const relay = new OutboxRelay(store, publisher, { topics: [topic], backoffBaseMs: 1, backoffMaxMs: 1 });
      let consumer: RunningConsumer | null = null;
      try {
        await relay.prepare();
        await enqueueMany(store, topic, 2, 5);
        const first = await relay.runOnce();
        expect(first).toMatchObject({ claimed: 10, published: 0, failed: 2, released: 8 });
        expect(relay.counters.unroutable).toBe(2);
        consumer = await consumeRabbitMq({
          url: AMQP,
          exchange,
          queue,
          bindingKeys: ['p.#'],
          target: store,
          handler: (message, trx) => writeEffect(trx, message),
        });
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await relay.drain()).toBe(10);
        await until(async () => consumer!.counters.applied === 10);
        const before = await effectRows(store);
        const outbox = new Outbox(store);
        for (const row of before.slice(-10)) await outbox.requeue(row.id);
        expect(await relay.drain()).toBe(10);
        await until(async () => consumer!.counters.duplicates === 10);
        const rows = (await effectRows(store)).slice(-10);
        expect(inAggregateOrder(rows)).toBe(true);
        expect(new Set(rows.map((r) => r.id)).size).toBe(10);
      } finally {
        await consumer?.stop();
        await publisher.close();
        await deleteAmqpNames(AMQP, exchange, queue);
      }
    });
  });
