/**
 * Interleaved A/B of the fastify and express Idempotency-Key adapters on MemoryStore between two source trees in
 * ONE process (see `ab-guard.ts` for why): fastify through `app.inject`, express over loopback with undici. Prints
 * CPU time per request (user + system, GC included, client side included and equal for both) per round and the
 * median ratio B ÷ A (below 1 = B is cheaper).
 *   git archive HEAD src | tar -x -C /tmp/base
 *   node --expose-gc --import tsx ab-http.ts /tmp/base/src src fastify 10 4000
 */
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import Fastify from 'fastify';
import { Pool } from 'undici';

const [dirA = '/tmp/base/src', dirB = 'src', framework = 'fastify', roundsText = '10', requestsText = '4000'] =
  process.argv.slice(2);
const REPLY = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };

type Send = (id: string) => Promise<number>;

async function side(dir: string): Promise<{ send: Send; close(): Promise<void> }> {
  const url = (path: string) => pathToFileURL(resolve(dir, path)).href;
  const { IdempotencyGuard } = await import(url('core/idempotency-guard.ts'));
  const { MemoryStore } = await import(url('stores/memory/memory-store.ts'));
  const guard = new IdempotencyGuard(new MemoryStore());
  const body = (id: string) => `{"id":"${id}","type":"payment.succeeded","amount":4200}`;
  const headers = (id: string) => ({ 'content-type': 'application/json', 'idempotency-key': `"${id}"` });
  if (framework === 'fastify') {
    const { fastifyIdempotencyKey, fastifyRawBody } = await import(url('http/fastify-idempotency-key.ts'));
    const app = Fastify({ logger: false });
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_r, raw, done) => done(null, raw));
    await app.register(fastifyIdempotencyKey({ guard, principal: () => 'bench' }));
    app.post('/webhook', async (request, reply) => {
      fastifyRawBody(request);
      return reply.code(REPLY.status).headers(REPLY.headers).send(REPLY.body);
    });
    await app.ready();
    return {
      send: async (id) =>
        (await app.inject({ method: 'POST', url: '/webhook', headers: headers(id), payload: body(id) })).statusCode,
      close: () => app.close(),
    };
  }
  const { expressIdempotencyKey, expressRawBody } = await import(url('http/express-idempotency-key.ts'));
  const app = express();
  app.post('/webhook', expressIdempotencyKey({ guard, principal: () => 'bench' }), (req, res) => {
    expressRawBody(req);
    res.status(REPLY.status).set(REPLY.headers).send(REPLY.body);
  });
  const server = await new Promise<import('node:http').Server>((done) => {
    const listening = app.listen(0, '127.0.0.1', () => done(listening));
  });
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 8 });
  return {
    async send(id) {
      const response = await pool.request({ path: '/webhook', method: 'POST', headers: headers(id), body: body(id) });
      await response.body.dump();
      return response.statusCode;
    },
    async close() {
      await pool.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

async function round(send: Send, requests: number, prefix: string): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  let next = 0;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < requests; i = next++) {
        const status = await send(`${prefix}${i}`);
        if (status !== 200) throw new Error(`HTTP ${status}`);
      }
    }),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

const a = await side(dirA);
const b = await side(dirB);
const requests = Number(requestsText);
await round(a.send, requests, 'wa');
await round(b.send, requests, 'wb');
const ratios: number[] = [];
for (let r = 0; r < Number(roundsText); r++) {
  const aFirst = r % 2 === 0;
  const x = await round(aFirst ? a.send : b.send, requests, `r${r}${aFirst ? 'a' : 'b'}`);
  const y = await round(aFirst ? b.send : a.send, requests, `r${r}${aFirst ? 'b' : 'a'}`);
  const [costA, costB] = aFirst ? [x, y] : [y, x];
  ratios.push(costB / costA);
  console.log(`round ${r}: A ${costA.toFixed(1)} µs  B ${costB.toFixed(1)} µs  B/A ${(costB / costA).toFixed(3)}`);
}
ratios.sort((p, q) => p - q);
console.log(
  `${framework}: median B/A ${ratios[Math.floor(ratios.length / 2)]!.toFixed(3)} over ${ratios.length} rounds`,
);
await a.close();
await b.close();
