import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { expressIdempotencyKey } from '../../packages/payonce/src/http/express-idempotency-key.js';
import { fastifyIdempotencyKey } from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import { honoIdempotencyKey } from '../../packages/payonce/src/http/hono-idempotency-key.js';
import { HTTP_PROBLEMS } from '../../packages/payonce/src/http/problem-status.js';
import { problemType } from '../../packages/payonce/src/problem/problem-details.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

// Issue #34 item 24: an oversized body on an Idempotency-Key route went to the application's error handler
// (express: `next(err)` with status 413, which a typical handler answers 500; hono had no limit at all). Every
// adapter now answers 413 problem+json itself, before any claim, whatever the application's error handler does.

const LIMIT = 64;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface App {
  readonly url: string;
  readonly runs: () => number;
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  closers.push(() => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    return closed;
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const guard = () => new IdempotencyGuard(new MemoryStore());

/** Each framework with the adapter, a body limit of LIMIT bytes and an error handler that answers every error 500. */
const start: Record<'express' | 'fastify' | 'hono', () => Promise<App>> = {
  async express() {
    let runs = 0;
    const app = express();
    app.post(
      '/pay',
      expressIdempotencyKey({ guard: guard(), principal: () => 'acct', maxBodyBytes: LIMIT }),
      (_q, res) => {
        runs++;
        res.status(201).json({ ok: true });
      },
    );
    app.use((_error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: 'internal' });
    });
    return { url: await listening(app.listen(0, '127.0.0.1')), runs: () => runs };
  },
  async fastify() {
    let runs = 0;
    const app = Fastify({ bodyLimit: LIMIT });
    app.setErrorHandler((_error, _request, reply) => reply.code(500).send({ error: 'internal' }));
    await app.register(fastifyIdempotencyKey({ guard: guard(), principal: () => 'acct' }));
    app.post('/pay', async (_request, reply) => {
      runs++;
      return reply.code(201).send({ ok: true });
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return { url: url.replace('localhost', '127.0.0.1'), runs: () => runs };
  },
  async hono() {
    let runs = 0;
    const app = new Hono();
    app.onError((_error, c) => c.json({ error: 'internal' }, 500));
    app.post('/pay', honoIdempotencyKey({ guard: guard(), principal: () => 'acct', maxBodyBytes: LIMIT }), (c) => {
      runs++;
      return c.json({ ok: true }, 201);
    });
    return {
      url: await listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server),
      runs: () => runs,
    };
  },
};

const oversized = JSON.stringify({ note: 'x'.repeat(LIMIT) });

/** A POST with a declared Content-Length, or chunked (no length: the limit is found while reading). */
function pay(url: string, body: string, framing: 'content-length' | 'chunked', key = 'k-1') {
  const headers = { 'idempotency-key': key, 'content-type': 'application/json' };
  if (framing === 'content-length') return fetch(`${url}/pay`, { method: 'POST', headers, body });
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(body);
      for (let at = 0; at < bytes.length; at += 16) controller.enqueue(bytes.subarray(at, at + 16));
      controller.close();
    },
  });
  return fetch(`${url}/pay`, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
}

describe.each(['express', 'fastify', 'hono'] as const)(
  '%s: a body over the limit on an Idempotency-Key route',
  (name) => {
    it.each(['content-length', 'chunked'] as const)(
      'is answered 413 problem+json REQUEST_BODY_TOO_LARGE by the middleware (%s), runs nothing and leaves the key free',
      async (framing) => {
        const app = await start[name]();
        const reply = await pay(app.url, oversized, framing);
        expect(reply.status).toBe(413);
        expect(reply.headers.get('content-type')).toBe('application/problem+json');
        expect(await reply.json()).toMatchObject({
          type: problemType('REQUEST_BODY_TOO_LARGE'),
          title: HTTP_PROBLEMS.REQUEST_BODY_TOO_LARGE.title,
          status: 413,
          code: 'REQUEST_BODY_TOO_LARGE',
        });
        expect(app.runs()).toBe(0);
        const retry = await pay(app.url, '{"amount":1}', framing);
        expect(retry.status).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBeNull();
        expect(app.runs()).toBe(1);
      },
    );
  },
);

describe.each(['express.json({ verify }) keeping req.rawBody', 'express.raw() on the route'] as const)(
  'express: a body an earlier parser (%s) read, over maxBodyBytes',
  (parser) => {
    it('is answered 413 problem+json, runs nothing and leaves the key free', async () => {
      let runs = 0;
      const app = express();
      const limit = { limit: '1mb' }; // the parser's own limit is larger than the adapter's
      const parse =
        parser === 'express.raw() on the route'
          ? express.raw({ ...limit, type: '*/*' })
          : express.json({
              ...limit,
              verify: (req, _res, buf) => {
                (req as express.Request & { rawBody?: Buffer }).rawBody = buf;
              },
            });
      app.post(
        '/pay',
        parse,
        expressIdempotencyKey({ guard: guard(), principal: () => 'acct', maxBodyBytes: LIMIT }),
        (_q, res) => {
          runs++;
          res.status(201).json({ ok: true });
        },
      );
      const url = await listening(app.listen(0, '127.0.0.1'));
      const reply = await pay(url, oversized, 'content-length');
      expect(reply.status).toBe(413);
      expect(reply.headers.get('content-type')).toBe('application/problem+json');
      expect(await reply.json()).toMatchObject({ code: 'REQUEST_BODY_TOO_LARGE' });
      expect(runs).toBe(0);
      const retry = await pay(url, '{"amount":1}', 'content-length');
      expect(retry.status).toBe(201);
      expect(runs).toBe(1);
    });
  },
);
