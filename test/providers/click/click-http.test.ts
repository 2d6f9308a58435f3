import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressClick } from '../../../packages/payonce/src/providers/click/express-click.js';
import { fastifyClick } from '../../../packages/payonce/src/providers/click/fastify-click.js';
import { honoClick } from '../../../packages/payonce/src/providers/click/hono-click.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace as sqlNamespace } from '../payme/payme-stores.js';
import { AMOUNT, clickForm, newClickTransId, noteOf } from './click-fixtures.js';
import { type ClickBench, type ClickReply, clickBench } from './click-harness.js';

/** The adapters translate HTTP only; one SQLite namespace serves all three. */
describe('Click SHOP API over HTTP (Express, Fastify, Hono)', () => {
  let namespace: Awaited<ReturnType<typeof sqlNamespace>>;
  let store: SqlStore<unknown>;
  let bench: ClickBench;
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    namespace = await sqlNamespace('sqlite');
    store = await namespace.open();
    bench = clickBench(store);
    const app = express();
    app.use(['/click/prepare', '/click/complete'], expressClick(bench.merchant));
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    urls.express = `http://127.0.0.1:${(server.address() as AddressInfo).port}/click`;
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const fastify = Fastify();
    await fastify.register(fastifyClick(bench.merchant));
    urls.fastify = `${await fastify.listen({ port: 0, host: '127.0.0.1' })}/click`;
    closers.push(() => fastify.close());
    const hono = new Hono();
    hono.route('/', honoClick(bench.merchant));
    const honoServer = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => honoServer.once('listening', () => resolve()));
    urls.hono = `http://127.0.0.1:${(honoServer.address() as AddressInfo).port}/click`;
    closers.push(() => new Promise<void>((resolve) => honoServer.close(() => resolve())));
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await namespace?.drop();
  });

  for (const framework of ['express', 'fastify', 'hono']) {
    it(`${framework}: pays an order with form posts to the Prepare and Complete URLs; GET is -8`, async () => {
      const url = urls[framework] as string;
      const post = async (path: string, body: string) => {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        return (await response.json()) as ClickReply;
      };
      const order = bench.addOrder();
      const id = newClickTransId();
      const prepared = await post(
        '/prepare',
        clickForm({ click_trans_id: id, merchant_trans_id: order, amount: AMOUNT, action: 0 }),
      );
      expect(prepared).toMatchObject({ click_trans_id: id, merchant_trans_id: order, error: 0 });
      const fields = {
        click_trans_id: id,
        merchant_trans_id: order,
        amount: AMOUNT,
        action: 1,
        merchant_prepare_id: prepared.merchant_prepare_id as number,
      };
      const completed = await post('/complete', clickForm(fields));
      expect(completed).toEqual({
        click_trans_id: id,
        merchant_trans_id: order,
        merchant_confirm_id: prepared.merchant_prepare_id,
        error: 0,
        error_note: noteOf(0),
      });
      expect(await post('/complete', clickForm(fields))).toEqual(completed);
      expect(await bench.fulfilments(id)).toBe(1);

      const get = await fetch(`${url}/prepare`);
      expect(get.status).toBe(200);
      expect(((await get.json()) as ClickReply).error).toBe(-8);
    });
  }
});
