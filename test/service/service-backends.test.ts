import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { deleteKeysWithPrefix, redisTestClient, redisTestUrl } from '../contract/backends/redis.js';
import {
  call,
  type Harness,
  orderAndCheckout,
  startHarness,
  untilFulfilled,
  type ViewBody,
} from './service-harness.js';

const selected = new Set<string>(backendsFromEnv());

/** The happy path plus a duplicate storm on one harness: one charge, one paid transition, one fulfilment. */
async function happyPath(h: Harness): Promise<ViewBody> {
  const url = h.service.url;
  const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
    body: { amountMinor: 3100, currency: 'EUR' },
  });
  const orderId = created.body.order.id;
  h.sandbox.controls.plan({ orderId }, { duplicateDeliveries: 2, parallelDeliveries: 3, twoEventIds: true });
  const checkout = await call<{ attempt: { id: string } }>(url, 'POST', `/orders/${orderId}/checkout`, {
    key: `backend-${orderId}`,
  });
  expect(checkout.status).toBe(201);
  await untilFulfilled(url, orderId, 'customer-a', 15_000);
  await h.sandbox.controls.idle(10_000);
  const view = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
  expect(view.order.status).toBe('completed');
  expect(view.paidTransitions).toBe(1);
  expect(view.fulfilments).toHaveLength(1);
  expect(view.jobs).toEqual([expect.objectContaining({ topic: 'order.fulfil', status: 'done' })]);
  expect(view.deliveries.filter((d) => d.decision === 'new')).toHaveLength(2);
  expect(h.sandbox.controls.charges(checkout.body.attempt.id)).toBe(1);
  return view;
}

// PostgreSQL and MariaDB run with group commit (`payonce serve --group-commit`): the sandbox's duplicate and
// parallel deliveries share batches; every other service test runs without it (the default).
describe.runIf(selected.has('postgres'))('reference service on PostgreSQL, --group-commit', () => {
  let h: Harness;
  beforeAll(async () => {
    const ns = await createPostgresNamespace();
    h = await startHarness({ databaseUrl: ns.url, dropDatabase: ns.drop, groupCommit: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs the happy path with duplicates once, and healthz names postgres', async () => {
    await happyPath(h);
    const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
    expect(health.body).toMatchObject({ status: 'ok', database: 'postgres', receipts: 'sql' });
  });
});

describe.runIf(selected.has('mysql'))('reference service on MariaDB, --group-commit', () => {
  let h: Harness;
  beforeAll(async () => {
    const ns = await createMysqlNamespace();
    h = await startHarness({ databaseUrl: ns.url, dropDatabase: ns.drop, groupCommit: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs the happy path with duplicates once, and healthz names mysql', async () => {
    await happyPath(h);
    const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
    expect(health.body).toMatchObject({ status: 'ok', database: 'mysql', receipts: 'sql' });
  });
});

describe.runIf(selected.has('redis'))('reference service with the intake receipts in Redis (REDIS_URL)', () => {
  let h: Harness;
  const prefix = `payonce-test-${randomUUID()}:`;
  beforeAll(async () => {
    h = await startHarness({ redisUrl: redisTestUrl(), redisPrefix: prefix });
  });
  afterAll(async () => {
    await h?.close();
    const client = redisTestClient();
    try {
      await deleteKeysWithPrefix(client, prefix);
    } finally {
      await client.quit();
    }
  });

  it('keeps webhook receipts in Redis and payment receipts in SQL, with one effect', async () => {
    const view = await happyPath(h);
    const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
    expect(health.body).toMatchObject({ status: 'ok', database: 'sqlite', receipts: 'redis' });
    const client = redisTestClient();
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      await client.quit();
    }
    const db = h.service.context.store.db as unknown as Kysely<ReceiptsDatabase>;
    const sqlReceipts = await db.selectFrom('payonce_receipts').select(['provider']).execute();
    const providers = new Set(sqlReceipts.map((r) => String(r.provider)));
    expect(providers.has('payments:stripe')).toBe(true);
    expect(providers.has('stripe')).toBe(false);
    expect(view.deliveries.some((d) => d.decision === 'duplicate')).toBe(true);
  });
});

describe('reference service with Standard Webhooks signing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ scheme: 'standard-webhooks' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('applies the events with the payment provider’s name and exact minor units', async () => {
    const view = await happyPath(h);
    expect(view.deliveries[0]?.provider).toBe('standard-webhooks');
    const webhookEntries = view.journal.filter((e) => /^(payment_intent|charge)\./.test(e.eventType));
    expect(webhookEntries.length).toBeGreaterThanOrEqual(2);
    // Keyed by the endpoint that received them (issue #34 item 3): never in the Stripe endpoint's id space.
    expect(webhookEntries.every((e) => e.eventId.startsWith('standard-webhooks:msg_'))).toBe(true);
    const { orderId } = await orderAndCheckout(h.service.url, 1, 'JPY');
    const yen = await untilFulfilled(h.service.url, orderId);
    expect(yen.order).toMatchObject({ amountMinor: 1, currency: 'JPY', status: 'completed' });
    expect(yen.paidTransitions).toBe(1);
  });
});
