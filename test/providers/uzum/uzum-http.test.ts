import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressUzum } from '../../../packages/payonce/src/providers/uzum/express-uzum.js';
import { fastifyUzum } from '../../../packages/payonce/src/providers/uzum/fastify-uzum.js';
import { honoUzum } from '../../../packages/payonce/src/providers/uzum/hono-uzum.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace } from '../payme/payme-stores.js';
import { AMOUNT, AUTH, code, GOOD_HEADERS, newTransId, PROTOCOL, SERVICE_ID } from './uzum-fixtures.js';
import { type UzumBench, uzumBench } from './uzum-harness.js';

/** The adapters translate HTTP only; one SQLite namespace serves all three. */
describe('Uzum Merchant API over HTTP (Express, Fastify, Hono)', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  let bench: UzumBench;
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
    bench = uzumBench(store);
    const app = express();
    app.use('/uzum', expressUzum(bench.merchant));
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    urls.express = `http://127.0.0.1:${(server.address() as AddressInfo).port}/uzum`;
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const fastify = Fastify();
    await fastify.register(fastifyUzum(bench.merchant, { prefix: '/uzum' }));
    urls.fastify = `${await fastify.listen({ port: 0, host: '127.0.0.1' })}/uzum`;
    closers.push(() => fastify.close());
    const hono = new Hono();
    hono.route('/', honoUzum(bench.merchant));
    const honoServer = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => honoServer.once('listening', () => resolve()));
    urls.hono = `http://127.0.0.1:${(honoServer.address() as AddressInfo).port}/uzum`;
    closers.push(() => new Promise<void>((resolve) => honoServer.close(() => resolve())));
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await namespace?.drop();
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = GOOD_HEADERS) =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  for (const adapter of ['express', 'fastify', 'hono'] as const) {
    it(`${adapter}: check → create → confirm → status pays once; a wrong password is 10001 with HTTP ${PROTOCOL.http_status.failure}`, async () => {
      const url = urls[adapter] as string;
      const order = bench.addOrder();
      const transId = newTransId();
      const base = { serviceId: SERVICE_ID, timestamp: bench.clock.now() };
      const check = await post(`${url}/check`, { ...base, params: order.params });
      expect(check.status).toBe(PROTOCOL.http_status.success);
      expect(check.headers.get('content-type')).toContain('application/json');
      expect(await check.json()).toMatchObject({ status: 'OK' });
      const created = await post(`${url}/create`, { ...base, transId, params: order.params, amount: AMOUNT });
      expect(await created.json()).toMatchObject({ status: 'CREATED', transId });
      const confirmed = await post(`${url}/confirm`, { ...base, transId });
      expect(await confirmed.json()).toMatchObject({ status: 'CONFIRMED', transId });
      const status = await post(`${url}/status`, { ...base, transId });
      expect(await status.json()).toMatchObject({ status: 'CONFIRMED', amount: AMOUNT });
      expect(await bench.fulfilments(transId)).toBe(1);

      const wrong = AUTH.vectors.find((vector) => vector.expected === 'invalid' && vector.headers.Authorization);
      const refused = await post(`${url}/status`, { ...base, transId }, wrong?.headers);
      expect(refused.status).toBe(PROTOCOL.http_status.failure);
      expect(await refused.json()).toMatchObject({ status: 'FAILED', errorCode: code('access denied') });
      const unknown = await post(`${url}/pay`, { ...base, transId });
      expect(unknown.status).toBe(PROTOCOL.http_status.failure);
      expect(await unknown.json()).toMatchObject({ errorCode: code('invalid (unknown) operation') });
    });
  }
});
