import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import {
  expressIdempotencyKey,
  expressRawBody,
  keepRawBody,
} from '../../packages/payonce/src/http/express-idempotency-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
});

async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function middleware(maxBodyBytes?: number) {
  return expressIdempotencyKey({
    guard: new IdempotencyGuard(new MemoryStore()),
    principal: () => 'acct_1',
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
}

const send = (url: string, body: string, key = 'k-1') =>
  fetch(`${url}/pay`, {
    method: 'POST',
    headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    body,
  });

/** Echoes the raw bytes the middleware saw, so a test can check they are the bytes sent. */
const echo = (req: Request, res: express.Response) => {
  res.type('application/octet-stream').send(expressRawBody(req));
};

describe('expressIdempotencyKey body sources (loopback)', () => {
  it('reads the body itself and hands the same bytes to the handler', async () => {
    const app = express();
    app.post('/pay', middleware(), echo);
    const url = await listen(app);
    const reply = await send(url, '{"b":1,"a":2}');
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe('{"b":1,"a":2}');
  });

  it('uses the Buffer left by express.raw()', async () => {
    const app = express();
    app.post('/pay', express.raw({ type: '*/*' }), middleware(), echo);
    const url = await listen(app);
    expect(await (await send(url, 'raw bytes')).text()).toBe('raw bytes');
    expect((await send(url, 'other bytes')).status).toBe(422);
  });

  it('uses req.rawBody kept by a parser verify hook', async () => {
    const app = express();
    const keep = express.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: Buffer.from(buf) }) });
    app.post('/pay', keep, middleware(), echo);
    const url = await listen(app);
    expect(await (await send(url, '{ "amount": 1 }')).text()).toBe('{ "amount": 1 }');
  });

  it('uses the bytes keepRawBody kept, and the route still gets the parsed body', async () => {
    const app = express();
    app.post('/pay', express.json({ verify: keepRawBody }), middleware(), (req, res) => {
      res.json({ raw: expressRawBody(req).toString(), parsed: req.body });
    });
    const url = await listen(app);
    expect(await (await send(url, '{ "amount": 1 }')).json()).toEqual({
      raw: '{ "amount": 1 }',
      parsed: { amount: 1 },
    });
    expect((await send(url, '{"amount":1}')).status).toBe(422); // same JSON, other bytes: the bytes are fingerprinted
  });

  // Issue #34 item 25: a global express.json() made every idempotent route answer 500 INVALID_OPTION at the
  // first request, with a message that did not say how to keep the bytes.
  it('refuses (500 INVALID_OPTION) a body a global express.json() consumed, naming the verify fix that works', async () => {
    const app = express();
    app.use(express.json());
    app.post('/pay', middleware(), echo);
    const reply = await send(await listen(app), '{"amount":1}');
    expect(reply.status).toBe(500);
    expect(reply.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await reply.json()) as { code: string; detail: string };
    expect(problem.code).toBe('INVALID_OPTION');
    expect(problem.detail).toContain('express.json({ verify: keepRawBody }) (keepRawBody from payonce/http/express)');

    const fixed = express();
    fixed.use(express.json({ verify: keepRawBody })); // the fix the detail names, as written (it type-checks)
    fixed.post('/pay', middleware(), echo);
    const url = await listen(fixed);
    expect(await (await send(url, '{ "amount": 1 }')).text()).toBe('{ "amount": 1 }');
    expect((await send(url, '{ "amount": 2 }')).status).toBe(422); // the exact bytes are fingerprinted
  });

  it('refuses (500) to run when mounted without a route', async () => {
    const app = express();
    app.use(middleware());
    app.post('/pay', echo);
    const url = await listen(app);
    const reply = await send(url, '{}');
    expect(reply.status).toBe(500);
    expect(await reply.text()).toContain('mount expressIdempotencyKey on a route');
  });

  it('answers 413 past maxBodyBytes, before any claim', async () => {
    const app = express();
    app.post('/pay', middleware(8), echo);
    const url = await listen(app);
    expect((await send(url, '123456789')).status).toBe(413);
    expect((await send(url, '12345678')).status).toBe(200);
  });
});
