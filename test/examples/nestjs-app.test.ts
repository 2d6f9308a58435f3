import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { INestApplication, Type } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SHOP_CONFIG, type ShopConfig } from '../../examples/nestjs/src/config.js';
import type { Prisma } from '../../examples/nestjs/src/generated/prisma/client.js';
import { FULFIL_TOPIC } from '../../examples/nestjs/src/orders/fulfilment.js';
import type { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { PAYONCE_GUARD } from '../../packages/payonce/src/nestjs/payonce-tokens.js';
import { OUTBOX_TABLE } from '../../packages/payonce/src/outbox/outbox-tables.js';
import { createPostgresNamespace, POSTGRES_TEST_URL, type PostgresNamespace } from '../contract/backends/postgres.js';
import { readFixture } from '../webhooks/fixtures.js';
import { STRIPE_SECRET, signedStripeHeaders } from '../webhooks/support/stripe-deliveries.js';

// Issue 41 "Done when": the NestJS example app (examples/nestjs) passes its e2e test — an Idempotency-Key route and the
// Stripe webhook in ONE Prisma transaction (PostgreSQL via @prisma/adapter-pg) — booted with @nestjs/testing on the
// express and the fastify platforms, on a schema of its own.

// The app's decorated modules are loaded by path: they use parameter decorators, which the example's own tsconfig
// enables (`experimentalDecorators`) and the repository's does not, so the root type check must not follow these
// imports (`tsc -p examples/nestjs/tsconfig.json` checks the app; vitest compiles it with the example's tsconfig).
const appFile = (path: string) => fileURLToPath(new URL(`../../examples/nestjs/src/${path}`, import.meta.url));
const { AppModule } = (await import(appFile('app.module.ts'))) as { AppModule: Type<unknown> };
/** The example's OrdersService, as far as the test uses it. */
type OrdersServiceClass = new () => {
  markPaid(tx: Prisma.TransactionClient, orderId: string, eventId: string): Promise<boolean>;
};
const { OrdersService } = (await import(appFile('orders/orders.service.ts'))) as { OrdersService: OrdersServiceClass };
const migration = readFileSync(
  new URL('../../examples/nestjs/prisma/migrations/20261206000000_orders/migration.sql', import.meta.url),
  'utf8',
);

/** The example's OrdersService, counting `markPaid` calls, and throwing once after the update for chosen orders. */
class WatchedOrders extends OrdersService {
  readonly paid: string[] = [];
  readonly failOnce = new Set<string>();

  override async markPaid(tx: Prisma.TransactionClient, orderId: string, eventId: string): Promise<boolean> {
    const updated = await super.markPaid(tx, orderId, eventId);
    this.paid.push(orderId);
    if (this.failOnce.delete(orderId)) throw new Error('the fulfilment service is down');
    return updated;
  }
}

/** A Stripe `checkout.session.completed` delivery (the shared fixture's body) for `orderId`, signed now. */
function checkoutCompleted(eventId: string, orderId: string): { body: string; headers: Record<string, string> } {
  const fixture = readFixture('stripe/payloads/checkout.session.completed.json') as { raw_body: string };
  const event = JSON.parse(fixture.raw_body) as { id: string; data: { object: Record<string, unknown> } };
  event.id = eventId;
  event.data.object.client_reference_id = orderId;
  const body = JSON.stringify(event, null, 2);
  return { body, headers: signedStripeHeaders(body) };
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

let ns: PostgresNamespace;
let db: pg.Pool;
beforeAll(async () => {
  ns = await createPostgresNamespace();
  db = new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${ns.schema}`, max: 2 });
  await db.query(migration); // what `npx prisma migrate deploy` runs in the app
});
afterAll(async () => {
  await db?.end();
  await ns?.drop();
});

for (const platform of ['express', 'fastify'] as const) {
  describe(`examples/nestjs on ${platform}`, () => {
    let app: INestApplication | undefined;
    let url: string;
    let orders: WatchedOrders;
    let guard: IdempotencyGuard;

    beforeAll(async () => {
      const config: ShopConfig = {
        databaseUrl: POSTGRES_TEST_URL,
        schema: ns.schema,
        stripeWebhookSecret: STRIPE_SECRET,
      };
      orders = new WatchedOrders();
      const ref = await Test.createTestingModule({ imports: [AppModule] })
        .overrideProvider(SHOP_CONFIG)
        .useValue(config)
        .overrideProvider(OrdersService)
        .useValue(orders)
        .compile();
      app =
        platform === 'fastify'
          ? ref.createNestApplication(new FastifyAdapter(), { rawBody: true, logger: false })
          : ref.createNestApplication({ rawBody: true, logger: false });
      await app.listen(0, '127.0.0.1');
      url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      guard = app.get(PAYONCE_GUARD);
    });
    afterAll(async () => {
      await app?.close();
    });
    afterEach(() => {
      orders.failOnce.clear();
    });

    const orderHeaders = (key: string) => ({
      'content-type': 'application/json',
      'idempotency-key': `"${platform}-${key}"`,
      'x-account-id': 'acct_1',
    });
    const newOrder = async (key: string, item = 'lamp') => {
      const body = JSON.stringify({ item, amountMinor: 999, currency: 'eur' });
      return post(`${url}/orders`, body, orderHeaders(key));
    };
    const rows = async (sql: string, params: unknown[]) => (await db.query(sql, params)).rows;

    it('creates one order per Idempotency-Key and replays the stored response', async () => {
      const first = await newOrder('k-1');
      const again = await newOrder('k-1');
      expect(first.status).toBe(201);
      const order = JSON.parse(first.text) as { id: string; status: string; item: string };
      expect(order).toMatchObject({ status: 'pending', item: 'lamp' });
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await rows('select id from shop_orders where item = $1 and id = $2', ['lamp', order.id])).toHaveLength(1);
      const mismatch = await newOrder('k-1', 'desk');
      expect(mismatch.status).toBe(422);
      expect(JSON.parse(mismatch.text)).toMatchObject({ code: 'PAYLOAD_MISMATCH' });
      expect(await rows('select id from shop_orders where item = $1', ['desk'])).toHaveLength(0);
    });

    it('a signed Stripe webhook delivered twice marks the order paid once and queues one outbox job', async () => {
      const order = JSON.parse((await newOrder('k-paid')).text) as { id: string };
      const eventId = `evt_${platform}_paid`;
      const delivery = checkoutCompleted(eventId, order.id);
      const first = await post(`${url}/webhooks/stripe`, delivery.body, delivery.headers);
      const again = await post(`${url}/webhooks/stripe`, delivery.body, delivery.headers);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(orders.paid.filter((id) => id === order.id)).toHaveLength(1); // the redelivery ran no handler
      expect(await rows('select status, paid_by from shop_orders where id = $1', [order.id])).toEqual([
        { status: 'paid', paid_by: eventId },
      ]);
      const jobs = await rows(`select payload from ${OUTBOX_TABLE} where topic = $1 and dedupe_key = $2`, [
        FULFIL_TOPIC,
        `order:${order.id}`,
      ]);
      expect(jobs).toHaveLength(1);
      expect((await guard.find(new RequestKey('stripe', eventId)))?.status).toBe('completed');
      const forged = await post(
        `${url}/webhooks/stripe`,
        delivery.body.replace(order.id, 'ord_other'),
        delivery.headers,
      );
      expect(forged.status).toBe(400);
    });

    it('a handler that throws commits nothing; the redelivery commits once', async () => {
      const order = JSON.parse((await newOrder('k-throw')).text) as { id: string };
      const eventId = `evt_${platform}_throw`;
      const delivery = checkoutCompleted(eventId, order.id);
      orders.failOnce.add(order.id);
      const failed = await post(`${url}/webhooks/stripe`, delivery.body, delivery.headers);
      expect(failed.status).toBe(500);
      expect(await rows('select status, paid_by from shop_orders where id = $1', [order.id])).toEqual([
        { status: 'pending', paid_by: null },
      ]);
      const dedupe = `order:${order.id}`;
      const jobsSql = `select id from ${OUTBOX_TABLE} where topic = $1 and dedupe_key = $2`;
      expect(await rows(jobsSql, [FULFIL_TOPIC, dedupe])).toHaveLength(0);
      expect((await guard.find(new RequestKey('stripe', eventId)))?.status).not.toBe('completed');
      const redelivered = await post(`${url}/webhooks/stripe`, delivery.body, delivery.headers);
      expect(redelivered.status).toBe(200);
      expect(await rows('select status from shop_orders where id = $1', [order.id])).toEqual([{ status: 'paid' }]);
      expect(await rows(jobsSql, [FULFIL_TOPIC, dedupe])).toHaveLength(1);
      expect(orders.paid.filter((id) => id === order.id)).toHaveLength(2); // the rolled-back run, then the commit
    });
  });
}
