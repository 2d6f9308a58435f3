import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxDatabase } from '../../packages/payonce/src/outbox/outbox-tables.js';
import type { ConsumedMessage, RunningConsumer } from '../../packages/payonce/src/relay/inbox.js';
import { consumeJetStream } from '../../packages/payonce/src/relay/nats/nats-consumer.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { type Harness, orderAndCheckout, startHarness, until, untilFulfilled } from '../service/service-harness.js';
import { uniqueName } from './relay-fixtures.js';

const NATS = 'nats://127.0.0.1:4222';

describe('payonce serve --broker: order.paid and order.fulfilled through the relay', () => {
  const prefix = uniqueName('serve');
  const stream = prefix.toUpperCase();
  let h: Harness;
  let consumer: RunningConsumer | null = null;
  let inbox: SqliteStore<unknown> | null = null;
  let dropInbox: () => Promise<void> = async () => {};
  const seen: ConsumedMessage[] = [];
  beforeAll(async () => {
    h = await startHarness({ brokerUrl: NATS, brokerSubjectPrefix: prefix });
    // The consumer's inbox lives in a database of its own, as in another service.
    const ns = await createSqliteNamespace();
    dropInbox = ns.drop;
    inbox = await SqliteStore.open<unknown>(ns.path);
    await inbox.migrate();
    await until(
      async () => {
        const nc = await connect({ servers: NATS });
        try {
          return (await (await jetstreamManager(nc)).streams.info(stream)) !== null;
        } catch {
          return false;
        } finally {
          await nc.close();
        }
      },
      10_000,
      'the relay to create its stream',
    );
    consumer = await consumeJetStream({
      servers: NATS,
      stream,
      durable: 'shipping',
      filterSubject: `${prefix}.>`,
      target: inbox,
      handler: async (message) => {
        seen.push(message);
      },
    });
  });
  afterAll(async () => {
    await consumer?.stop();
    await inbox?.close();
    await dropInbox();
    await h?.close();
    const nc = await connect({ servers: NATS });
    const jsm = await jetstreamManager(nc);
    for (const name of [stream, `${stream}_DEAD_LETTER`]) await jsm.streams.delete(name).catch(() => false);
    await nc.close();
  });

  it('a paid and fulfilled order publishes order.paid then order.fulfilled, each consumed once, jobs marked sent', async () => {
    const { orderId, checkout } = await orderAndCheckout(h.service.url);
    expect(checkout.status).toBe(201);
    await untilFulfilled(h.service.url, orderId);
    const events = await until(
      async () => {
        const mine = seen.filter((m) => (m.payload as { orderId?: string }).orderId === orderId);
        return mine.length >= 2 ? mine : null;
      },
      10_000,
      'both events at the consumer',
    );
    expect(events.map((m) => m.topic)).toEqual(['order.paid', 'order.fulfilled']);
    expect(events.map((m) => m.subject)).toEqual([`${prefix}.order.paid`, `${prefix}.order.fulfilled`]);
    expect(events.every((m) => m.aggregateKey === `order:${orderId}`)).toBe(true);
    expect(Number(events[0]?.sequence)).toBeLessThan(Number(events[1]?.sequence));
    const db = h.service.context.store.db as unknown as Kysely<OutboxDatabase>;
    const jobs = await until(
      async () => {
        const rows = await db
          .selectFrom('payonce_outbox')
          .select(['topic', 'status'])
          .where('dedupe_key', '=', `order:${orderId}`)
          .where('topic', 'in', ['order.paid', 'order.fulfilled'])
          .execute();
        return rows.length === 2 && rows.every((r) => r.status === 'done') ? rows : null;
      },
      5_000,
      'the event jobs marked sent',
    );
    expect(jobs).toHaveLength(2);
    const metrics = await (await fetch(`${h.service.url}/metrics`)).text();
    expect(metrics).toMatch(/^payonce_relay_published_total [1-9]/m);
    expect(metrics).toMatch(/^payonce_relay_lag_seconds /m);
  });
});
