import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { drizzle } from 'drizzle-orm/node-postgres';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidOption, TransactionEnded } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import {
  expressIdempotencyKey,
  expressRawBody,
  expressStackTransaction,
  expressTransaction,
} from '../../packages/payonce/src/http/express-idempotency-key.js';
import {
  fastifyIdempotencyKey,
  fastifyRawBody,
  fastifyStackTransaction,
  fastifyTransaction,
} from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import {
  honoIdempotencyKey,
  honoStackTransaction,
  honoTransaction,
} from '../../packages/payonce/src/http/hono-idempotency-key.js';
import { httpRequestKey } from '../../packages/payonce/src/http/http-request-key.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';
import { pgTransactions } from '../../packages/payonce/src/tx/pg.js';
import { openStackFixture, type StackStore, type StackTarget } from '../stack/stack-target.js';
import { appPool, effects, STACK_KINDS } from '../webhooks/support/stack-intake.js';
import {
  errorAnswer,
  FRAMEWORKS,
  type Framework,
  postPayment,
  type RouteApp,
  type RouteContext,
  RouteError,
  startRouteApp,
} from './support/route-apps.js';

// Idempotency-Key routes in ONE transaction payonce opens on the application's stack (Drizzle on node-postgres):
// the route writes its row with the Drizzle `tx`, and an outbox job with payonce's view, both with the receipt.

const TOPIC = 'payment.recorded';
/** The stack's transaction object an opener hands out. */
type TxOf<T> = T extends StackTransactions<infer N> ? N : never;
/** The Drizzle (node-postgres) `tx` the openers of this file hand out. */
const drizzleOpener = (pool: pg.Pool) => drizzleTransactions(drizzle(pool));
type DrizzleTx = TxOf<ReturnType<typeof drizzleOpener>>;
/** The receipt key of an `Idempotency-Key` of the test apps (default namespace, principal `acct_1`). */
const httpKeyOf = (key: string) => httpRequestKey('http', 'acct_1', 'POST', '/v1/payments', key);

describe('postgres: Idempotency-Key routes with transaction = drizzleTransactions(db)', () => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let pool: pg.Pool;
  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    pool = appPool(fixture.target.url, fixture.target.schema ?? '');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute(fixture.store.db)).rows[0]?.n);
  const rowsOf = (reference: string) =>
    count(sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${reference}`);
  const jobsOf = (reference: string) =>
    count(
      sql<{ n: string }>`select count(*) as n from payonce_outbox where topic = ${TOPIC} and dedupe_key = ${reference}`,
    );

  async function start(framework: Framework): Promise<{ url: string; close(): Promise<void> }> {
    const db = drizzle(pool);
    const transactions = drizzleTransactions(db);
    const guard = new IdempotencyGuard(fixture.store);
    const outbox = new Outbox(fixture.store);
    const core = createIdempotencyCore({ guard, transaction: transactions, storedHeaders: ['content-type'] });
    const principal = () => 'acct_1';
    /** The route's business step: its row through the Drizzle tx, an outbox job through payonce's view. */
    const pay = async (tx: TxOf<typeof transactions>, payonceTx: unknown, raw: Uint8Array) => {
      const body = JSON.parse(Buffer.from(raw).toString('utf8')) as { reference: string; fail?: boolean };
      await tx.insert(effects).values({ eventId: body.reference });
      await outbox.enqueueOnce(payonceTx as Transaction<ReceiptsDatabase>, TOPIC, body.reference, body);
      if (body.fail) return { status: 500, body: '{"error":"after the write"}' };
      return { status: 201, body: JSON.stringify({ paid: body.reference }) };
    };
    if (framework === 'fastify') {
      const app = Fastify();
      await app.register(fastifyIdempotencyKey({ core, principal }));
      app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
      app.post('/v1/payments', async (request, reply) => {
        const tx = fastifyStackTransaction(request, transactions);
        const { status, body } = await pay(tx, fastifyTransaction(request), fastifyRawBody(request));
        return reply.code(status).header('content-type', 'application/json').send(body);
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    }
    if (framework === 'express') {
      const app = express();
      app.post('/v1/payments', expressIdempotencyKey({ core, principal }), async (req, res) => {
        const tx = expressStackTransaction(req, transactions);
        const { status, body } = await pay(tx, expressTransaction(req), expressRawBody(req));
        res.status(status).type('application/json').send(body);
      });
      const server = createServer(app);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
    }
    const app = new Hono();
    app.post('/v1/payments', honoIdempotencyKey({ core, principal }), async (c) => {
      const tx = honoStackTransaction(c, transactions);
      const { status, body } = await pay(tx, honoTransaction(c), new Uint8Array(await c.req.arrayBuffer()));
      return c.body(body, status as 201 | 500, { 'content-type': 'application/json' });
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it.each(FRAMEWORKS)(
    '%s: one row and one job per key in the Drizzle transaction; replay, 422 on another body, 5xx rolls back',
    async (framework) => {
      const app = await start(framework);
      try {
        const reference = `ref-${framework}-${process.pid}`;
        const post = (key: string, body: object) =>
          fetch(`${app.url}/v1/payments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(body),
          });
        const failed = await post(`fail-${framework}`, { reference: `${reference}-f`, fail: true });
        expect(failed.status).toBe(500);
        expect([await rowsOf(`${reference}-f`), await jobsOf(`${reference}-f`)]).toEqual([0, 0]);
        const first = await post(`key-${framework}`, { reference });
        expect([first.status, await first.text()]).toEqual([201, `{"paid":"${reference}"}`]);
        const again = await post(`key-${framework}`, { reference });
        expect([again.status, again.headers.get('idempotent-replayed'), await again.text()]).toEqual([
          201,
          'true',
          `{"paid":"${reference}"}`,
        ]);
        const other = await post(`key-${framework}`, { reference: `${reference}-other` });
        expect(other.status).toBe(422);
        expect(((await other.json()) as { code: string }).code).toBe('PAYLOAD_MISMATCH');
        expect([await rowsOf(reference), await jobsOf(reference), await rowsOf(`${reference}-other`)]).toEqual([
          1, 1, 0,
        ]);
        const parallel = await Promise.all(
          Array.from({ length: 10 }, () =>
            post(`par-${framework}`, { reference: `${reference}-par` }).then((r) => r.status),
          ),
        );
        expect(parallel).toEqual(Array(10).fill(201));
        expect([await rowsOf(`${reference}-par`), await jobsOf(`${reference}-par`)]).toEqual([1, 1]);
      } finally {
        await app.close();
      }
    },
    60_000,
  );

  it('types the stack accessor from the opener', () => {
    const transactions = drizzleTransactions(drizzle(pool));
    const read = (req: express.Request) => expressStackTransaction(req, transactions);
    expectTypeOf(read).returns.toEqualTypeOf<TxOf<typeof transactions>>();
    expectTypeOf<TxOf<typeof transactions>>().toHaveProperty('insert');
    expectTypeOf<TxOf<typeof transactions>>().not.toBeUnknown();
  });

  it('refuses a wrong opener object and an opener of another dialect than the store (InvalidOption)', async () => {
    const guard = new IdempotencyGuard(fixture.store);
    for (const wrong of [{}, pool, drizzle(pool), 'yes', { dialect: 'postgres' }]) {
      expect(() => createIdempotencyCore({ guard, transaction: wrong as never })).toThrow(InvalidOption);
    }
    const sqlite = await SqliteStore.open(':memory:');
    try {
      const onSqlite = new IdempotencyGuard(sqlite);
      expect(() => createIdempotencyCore({ guard: onSqlite, transaction: drizzleTransactions(drizzle(pool)) })).toThrow(
        /postgres SQL store/,
      );
    } finally {
      await sqlite.close();
    }
  });
});

// The route's answer is sent only after the ONE transaction committed; a route that throws after answering rolls
// everything back and its client gets the app's error answer alone; the lent objects refuse use once it returned.
describe.each(STACK_KINDS)('postgres: Idempotency-Key routes on %s transactions, answered after the commit', (kind) => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let pool: pg.Pool;
  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    pool = appPool(fixture.target.url, fixture.target.schema ?? '');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute(fixture.store.db)).rows[0]?.n);
  const rowsOf = (reference: string) =>
    count(sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${reference}`);
  const jobsOf = (reference: string) =>
    count(
      sql<{ n: string }>`select count(*) as n from payonce_outbox where topic = ${TOPIC} and dedupe_key = ${reference}`,
    );

  /** The stack's transactions of this run, and its business write through the stack's own object. */
  const stackOf = () => {
    if (kind === 'pg') {
      return {
        transactions: pgTransactions(pool) as StackTransactions<unknown>,
        insert: (tx: unknown, reference: string) =>
          (tx as pg.PoolClient).query({
            text: 'insert into stack_effects (event_id) values ($1)',
            values: [reference],
          }),
      };
    }
    return {
      transactions: drizzleOpener(pool) as StackTransactions<unknown>,
      insert: (tx: unknown, reference: string) => (tx as DrizzleTx).insert(effects).values({ eventId: reference }),
    };
  };

  async function start(framework: Framework, route: (ctx: RouteContext) => Promise<void>): Promise<RouteApp> {
    const { transactions } = stackOf();
    const guard = new IdempotencyGuard(fixture.store);
    const core = createIdempotencyCore({
      guard,
      transaction: transactions,
      storedHeaders: ['content-type', 'location'],
    });
    return await startRouteApp(framework, core, route);
  }

  it.each(FRAMEWORKS)(
    '%s: a write made after the answer commits with the receipt before the client has the answer',
    async (framework) => {
      const { insert } = stackOf();
      const outbox = new Outbox(fixture.store);
      const app = await start(framework, async (ctx) => {
        const reference = String(ctx.body.reference);
        ctx.answer(201, JSON.stringify({ paid: reference }), { location: `/v1/payments/${reference}` });
        await pool.query('select pg_sleep(0.2)'); // the route goes on after answering, on another connection
        await insert(ctx.stackTx(), reference);
        await outbox.enqueueOnce(ctx.payonceTx() as Transaction<ReceiptsDatabase>, TOPIC, reference, {});
      });
      try {
        const reference = `late-${kind}-${framework}`;
        const first = await postPayment(app, `key-late-${framework}`, { reference });
        // The client holds the answer: the row written after it, the job and the receipt are already committed.
        expect([await rowsOf(reference), await jobsOf(reference)]).toEqual([1, 1]);
        expect([first.status, first.text, first.headers.get('location')]).toEqual([
          201,
          `{"paid":"${reference}"}`,
          `/v1/payments/${reference}`,
        ]);
        const again = await postPayment(app, `key-late-${framework}`, { reference });
        expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([201, 'true', first.text]);
        expect([await rowsOf(reference), await jobsOf(reference)]).toEqual([1, 1]);
      } finally {
        await app.close();
      }
    },
    60_000,
  );

  it.each(FRAMEWORKS)(
    "%s: a route that throws after answering rolls everything back; the client gets the app's error answer alone",
    async (framework) => {
      const { insert } = stackOf();
      const outbox = new Outbox(fixture.store);
      const failedOnce = new Set<string>();
      const app = await start(framework, async (ctx) => {
        const reference = String(ctx.body.reference);
        ctx.answer(201, JSON.stringify({ paid: reference }), { location: `/v1/payments/${reference}` });
        await insert(ctx.stackTx(), reference);
        await outbox.enqueueOnce(ctx.payonceTx() as Transaction<ReceiptsDatabase>, TOPIC, reference, {});
        if (!failedOnce.has(reference)) {
          failedOnce.add(reference);
          throw new RouteError('failed after answering');
        }
      });
      try {
        const reference = `throw-${kind}-${framework}`;
        const failed = await postPayment(app, `key-throw-${framework}`, { reference });
        expect(failed.status).toBe(500);
        expect(failed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(failed.text).toBe(errorAnswer(new RouteError('failed after answering')).body); // one body, not two
        expect(failed.headers.get('location')).toBeNull(); // nothing of the dropped 201 leaks
        expect([await rowsOf(reference), await jobsOf(reference)]).toEqual([0, 0]);
        expect(await fixture.store.find(httpKeyOf(`key-throw-${framework}`))).toBeNull(); // rolled back with the claim
        // The key was released: the retry runs the route again and commits once.
        const retry = await postPayment(app, `key-throw-${framework}`, { reference });
        expect([retry.status, retry.text, retry.headers.get('idempotent-replayed')]).toEqual([
          201,
          `{"paid":"${reference}"}`,
          null,
        ]);
        expect([await rowsOf(reference), await jobsOf(reference)]).toEqual([1, 1]);
      } finally {
        await app.close();
      }
    },
    60_000,
  );

  it.each(FRAMEWORKS)(
    '%s: the transaction objects refuse use once the route returned (TransactionEnded); nothing is autocommitted',
    async (framework) => {
      const { insert } = stackOf();
      let lent: { native: unknown; payonceTx: unknown } | undefined;
      const app = await start(framework, async (ctx) => {
        lent = { native: ctx.stackTx(), payonceTx: ctx.payonceTx() };
        ctx.answer(201, '{"ok":true}');
      });
      try {
        const reference = `kept-${kind}-${framework}`;
        expect((await postPayment(app, `key-kept-${framework}`, { reference })).status).toBe(201);
        const kept = lent!;
        await expect(Promise.resolve().then(() => insert(kept.native, reference))).rejects.toThrow(TransactionEnded);
        await expect(sql`select 1`.execute(kept.payonceTx as Transaction<ReceiptsDatabase>)).rejects.toThrow(
          TransactionEnded,
        );
        expect(await rowsOf(reference)).toBe(0);
      } finally {
        await app.close();
      }
    },
    60_000,
  );
});
