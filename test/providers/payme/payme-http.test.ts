import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { expressPayme } from '../../../packages/payonce/src/providers/payme/express-payme.js';
import { fastifyPayme } from '../../../packages/payonce/src/providers/payme/fastify-payme.js';
import { honoPayme } from '../../../packages/payonce/src/providers/payme/hono-payme.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { AMOUNT, AUTH, code, GOOD_HEADERS, newPaymeId, PAYME_TIME } from './payme-fixtures.js';
import { type PaymeBench, paymeBench } from './payme-harness.js';
import { paymeNamespace } from './payme-stores.js';

/** The adapters translate HTTP only; one SQLite namespace serves all three. */
describe('Payme Merchant API over HTTP (Express, Fastify, Hono)', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  let bench: PaymeBench;
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
    bench = paymeBench(store);
    const app = express();
    app.use('/payme', expressPayme(bench.merchant));
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    urls.express = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payme`;
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const fastify = Fastify();
    await fastify.register(fastifyPayme(bench.merchant, { path: '/payme' }));
    urls.fastify = `${await fastify.listen({ port: 0, host: '127.0.0.1' })}/payme`;
    closers.push(() => fastify.close());
    const hono = new Hono();
    hono.route('/', honoPayme(bench.merchant));
    const honoServer = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => honoServer.once('listening', () => resolve()));
    urls.hono = `http://127.0.0.1:${(honoServer.address() as AddressInfo).port}/payme`;
    closers.push(() => new Promise<void>((resolve) => honoServer.close(() => resolve())));
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await namespace?.drop();
  });

  it('express: refuses a body an earlier JSON parser consumed with InvalidOption, never answering Payme from it', async () => {
    const errors: unknown[] = [];
    const app = express();
    app.use(express.json());
    app.use('/payme', expressPayme(bench.merchant));
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      errors.push(error);
      res.status(500).end();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payme`;
      const response = await fetch(url, { method: 'POST', headers: AUTH.valid.headers, body: AUTH.valid.raw_body });
      expect(response.status).toBe(500);
      expect(errors).toEqual([expect.any(InvalidOption)]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  for (const framework of ['express', 'fastify', 'hono']) {
    it(`${framework}: answers the fixture requests with HTTP 200 and JSON-RPC bodies, and GET with -32300`, async () => {
      const url = urls[framework] as string;
      const order = bench.addOrder();
      const post = async (method: string, params: unknown, headers: Record<string, string> = GOOD_HEADERS) => {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ id: 9, method, params }),
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        return (await response.json()) as { id: unknown; result?: Record<string, unknown>; error?: { code: number } };
      };
      const refused = await post(
        'CheckPerformTransaction',
        { amount: AMOUNT, account: order.account },
        AUTH.missing.headers,
      );
      expect(refused.error?.code).toBe(code('-32504'));
      expect((await post('CheckPerformTransaction', { amount: AMOUNT, account: order.account })).result).toEqual({
        allow: true,
      });
      const id = newPaymeId();
      const create = await post('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account: order.account });
      expect(create).toMatchObject({ id: 9, result: { state: 1 } });
      expect((await post('PerformTransaction', { id })).result?.state).toBe(2);
      expect(await bench.fulfilments(id)).toBe(1);

      const get = await fetch(url);
      expect(get.status).toBe(200);
      expect(((await get.json()) as { error: { code: number } }).error.code).toBe(code('-32300'));
    });
  }

  it('hono: the sender is the socket address under @hono/node-server (allowIps), a huge body is 413', async () => {
    const served = async (allowIps: string[]) => {
      const app = new Hono();
      app.route('/', honoPayme(paymeBench(store, { allowIps }).merchant, { maxBodyBytes: 1_024 }));
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/payme`;
    };
    const check = JSON.stringify({ id: 1, method: 'CheckPerformTransaction', params: { amount: AMOUNT, account: {} } });
    const outside = await fetch(await served(['192.0.2.10']), { method: 'POST', headers: GOOD_HEADERS, body: check });
    expect(((await outside.json()) as { error: { code: number } }).error.code).toBe(code('-32504'));
    const inside = await served(['127.0.0.1']);
    const allowed = await fetch(inside, { method: 'POST', headers: GOOD_HEADERS, body: check });
    expect(((await allowed.json()) as { error?: { code: number } }).error?.code).not.toBe(code('-32504'));
    const huge = await fetch(inside, { method: 'POST', headers: GOOD_HEADERS, body: 'x'.repeat(4_096) });
    expect(huge.status).toBe(413);
  });
});
