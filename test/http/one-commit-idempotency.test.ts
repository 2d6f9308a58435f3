import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import type { Kysely, Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionsUnsupported } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import {
  expressIdempotencyKey,
  expressRawBody,
  expressTransaction,
} from '../../packages/payonce/src/http/express-idempotency-key.js';
import {
  fastifyIdempotencyKey,
  fastifyRawBody,
  fastifyTransaction,
} from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import { honoIdempotencyKey, honoTransaction } from '../../packages/payonce/src/http/hono-idempotency-key.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { errorAnswer, postPayment, RouteError, startRouteApp } from './support/route-apps.js';

// The Idempotency-Key adapters' one-commit mode (issue 13 item 1): the route's business row and the key's
// receipt commit in one transaction, on each framework. A business table without a unique constraint.

interface Db {
  payments: { reference: string; amount: number };
}
type Tx = Transaction<Db>;
type Framework = 'fastify' | 'express' | 'hono';

/** The route's business step: insert the payment through `tx`; `fail` in the body answers 500 after the insert. */
async function pay(tx: Tx, raw: Uint8Array): Promise<{ status: number; body: string }> {
  const body = JSON.parse(Buffer.from(raw).toString('utf8')) as { reference: string; amount: number; fail?: boolean };
  await tx.insertInto('payments').values({ reference: body.reference, amount: body.amount }).execute();
  if (body.fail) return { status: 500, body: '{"error":"after the write"}' };
  return { status: 201, body: JSON.stringify({ paid: body.reference }) };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function start(
  framework: Framework,
  guard: IdempotencyGuard<SqlStore<Db>>,
): Promise<{ url: string; close(): Promise<void> }> {
  const core = createIdempotencyCore({ guard, transaction: true, storedHeaders: ['content-type'] });
  const principal = () => 'acct_1';
  if (framework === 'fastify') {
    const app = Fastify();
    await app.register(fastifyIdempotencyKey({ core, principal }));
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
    app.post('/v1/payments', async (request, reply) => {
      const { status, body } = await pay(fastifyTransaction<Tx>(request), fastifyRawBody(request));
      return reply.code(status).header('content-type', 'application/json').send(body);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  }
  if (framework === 'express') {
    const app = express();
    app.post('/v1/payments', expressIdempotencyKey({ core, principal }), async (req, res) => {
      const { status, body } = await pay(expressTransaction<Tx>(req), expressRawBody(req));
      res.status(status).type('application/json').send(body);
    });
    const server = createServer(app);
    const url = await listen(server);
    return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const app = new Hono();
  app.post('/v1/payments', honoIdempotencyKey({ core, principal }), async (c) => {
    const { status, body } = await pay(honoTransaction<Tx>(c), new Uint8Array(await c.req.arrayBuffer()));
    return c.body(body, status as 201 | 500, { 'content-type': 'application/json' });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('Idempotency-Key one-commit mode on SQLite', () => {
  let backend: SqlBackend;
  let store: SqlStore<Db>;
  let guard: IdempotencyGuard<SqlStore<Db>>;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = (await backend.open()) as SqlStore<Db>;
    await (store.db as Kysely<Db>).schema
      .createTable('payments')
      .addColumn('reference', 'varchar(64)', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .execute();
    guard = new IdempotencyGuard(store);
  });
  afterAll(() => backend?.drop());

  const rows = async (reference: string) =>
    (await (store.db as Kysely<Db>).selectFrom('payments').selectAll().where('reference', '=', reference).execute())
      .length;

  it.each<Framework>(['fastify', 'express', 'hono'])(
    '%s: a 5xx after the write leaves no row and no receipt; the retry writes once and replays',
    async (framework) => {
      const app = await start(framework, guard);
      try {
        const reference = `ref-${framework}`;
        const post = (body: object) =>
          fetch(`${app.url}/v1/payments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': `key-${framework}` },
            body: JSON.stringify(body),
          });
        // A 5xx rolls the claim back with the write: no receipt binds the key, so the retry is a fresh request.
        const failed = await post({ reference, amount: 100, fail: true });
        expect(failed.status).toBe(500);
        expect(await rows(reference)).toBe(0);
        const first = await post({ reference, amount: 100 });
        expect([first.status, await first.text()]).toEqual([201, `{"paid":"${reference}"}`]);
        const again = await post({ reference, amount: 100 });
        expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
        expect(await rows(reference)).toBe(1);
        const parallel = await Promise.all(
          Array.from({ length: 10 }, () =>
            fetch(`${app.url}/v1/payments`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'idempotency-key': `par-${framework}` },
              body: JSON.stringify({ reference: `${reference}-par`, amount: 5 }),
            }).then((r) => r.status),
          ),
        );
        expect(parallel).toEqual(Array(10).fill(201));
        expect(await rows(`${reference}-par`)).toBe(1);
      } finally {
        await app.close();
      }
    },
  );

  it.each<Framework>(['fastify', 'express', 'hono'])(
    "%s: a route that throws after answering and writing leaves no row and no receipt; the client gets the app's error answer alone",
    async (framework) => {
      const core = createIdempotencyCore({ guard, transaction: true, storedHeaders: ['content-type'] });
      const failedOnce = new Set<string>();
      const app = await startRouteApp(framework, core, async (ctx) => {
        const reference = String(ctx.body.reference);
        ctx.answer(201, JSON.stringify({ paid: reference }));
        await (ctx.payonceTx() as Tx).insertInto('payments').values({ reference, amount: 100 }).execute();
        if (!failedOnce.has(reference)) {
          failedOnce.add(reference);
          throw new RouteError('failed after answering');
        }
      });
      try {
        const reference = `late-throw-${framework}`;
        const failed = await postPayment(app, `throw-${framework}`, { reference });
        expect([failed.status, failed.text]).toEqual([500, errorAnswer(new RouteError('failed after answering')).body]);
        expect(await rows(reference)).toBe(0);
        const retry = await postPayment(app, `throw-${framework}`, { reference });
        expect([retry.status, retry.text]).toEqual([201, `{"paid":"${reference}"}`]);
        expect(await rows(reference)).toBe(1);
      } finally {
        await app.close();
      }
    },
  );

  it('refuses transaction: true on the memory store at construction', () => {
    expect(() => createIdempotencyCore({ guard: new IdempotencyGuard(new MemoryStore()), transaction: true })).toThrow(
      TransactionsUnsupported,
    );
    expect(() =>
      fastifyIdempotencyKey({
        guard: new IdempotencyGuard(new MemoryStore()),
        transaction: true,
        principal: () => 'a',
      }),
    ).toThrow(TransactionsUnsupported);
  });
});
