/**
 * An HTTP server child of `npm run bench`: one signed-webhook route (`POST /webhook`, Standard Webhooks signature
 * verified with the `standardwebhooks` package on every request), guarded as argv[2] says, on loopback port 0.
 * Reports its port and, on request, its handler-run count over IPC. Runs in its own process so the load generator
 * does not share its event loop.
 */
import type { IncomingHttpHeaders } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { getSharedIdempotencyService, idempotency } from 'express-idempotency';
import Fastify from 'fastify';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { expressIdempotencyKey, expressRawBody } from 'payonce/internal/http/express-idempotency-key.js';
import { fastifyIdempotencyKey } from 'payonce/internal/http/fastify-idempotency-key.js';
import { Webhook } from 'standardwebhooks';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { type Deliverer, HANDLER_RESPONSE, type HandlerCounter } from '../lib/subject.js';
import { openBare } from '../subjects/bare.js';
import { guardedDelivery, openStore } from '../subjects/payonce.js';
import { type HttpRouteName, type ParentMessage, type ServerMessage, WEBHOOK_SECRET } from './http-routes.js';

interface ServerConfig {
  readonly route: HttpRouteName;
  readonly ns: NamespaceInfo;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
const counter: HandlerCounter = { runs: 0 };
const webhook = new Webhook(WEBHOOK_SECRET);
const send = (message: ServerMessage) => process.send?.(message);

/** Verifies the Standard Webhooks signature of `raw`; returns the delivery id, or throws. */
function verified(raw: string | Buffer, headers: IncomingHttpHeaders): string {
  const signed = {
    'webhook-id': String(headers['webhook-id'] ?? ''),
    'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
    'webhook-signature': String(headers['webhook-signature'] ?? ''),
  };
  webhook.verify(raw, signed);
  return signed['webhook-id'];
}

/** The route's bare or guarded delivery (`fastify-bare`, `fastify-guard`, `express-bare`). */
async function deliverer(guarded: boolean): Promise<Deliverer> {
  if (!guarded) return openBare(config.ns, counter);
  const { store, close } = await openStore(config.ns);
  const guard = new IdempotencyGuard(store);
  return { deliver: (id) => guardedDelivery(guard, id, counter), close };
}

async function fastifyServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  let release = async () => {};
  if (config.route === 'fastify-adapter') {
    const { store, close } = await openStore(config.ns);
    release = close;
    await app.register(fastifyIdempotencyKey({ guard: new IdempotencyGuard(store), principal: () => 'bench' }));
    app.post('/webhook', async (request, reply) => {
      // The same handler as the bare route (fastify's parsed text, which is the body's exact text with the string
      // parser), so the pair differs only by the adapter; the adapter still keeps and fingerprints the raw bytes.
      verified(request.body as string, request.headers);
      counter.runs++;
      return reply.code(HANDLER_RESPONSE.status).headers(HANDLER_RESPONSE.headers).send(HANDLER_RESPONSE.body);
    });
  } else {
    const delivery = await deliverer(config.route === 'fastify-guard');
    release = () => delivery.close();
    app.post('/webhook', async (request, reply) => {
      const id = verified(request.body as string, request.headers);
      const result = await delivery.deliver(id);
      if (result === 'in-progress') return reply.code(409).header('retry-after', '1').send();
      return reply.code(HANDLER_RESPONSE.status).headers(HANDLER_RESPONSE.headers).send(HANDLER_RESPONSE.body);
    });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: async () => {
      await app.close();
      await release();
    },
  };
}

async function expressServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const app = express();
  const reply = (res: Response) =>
    res.status(HANDLER_RESPONSE.status).set(HANDLER_RESPONSE.headers).send(HANDLER_RESPONSE.body);
  let release = async () => {};
  if (config.route === 'express-adapter') {
    const { store, close } = await openStore(config.ns);
    release = close;
    const guard = new IdempotencyGuard(store);
    app.post('/webhook', expressIdempotencyKey({ guard, principal: () => 'bench' }), (req, res) => {
      verified(expressRawBody(req), req.headers);
      counter.runs++;
      reply(res);
    });
  } else if (config.route === 'express-idempotency') {
    // As its README shows: a body parser, then the middleware, then routes that return early on a hit.
    app.use(express.raw({ type: '*/*' }));
    app.use(idempotency());
    app.post('/webhook', (req, res) => {
      if (getSharedIdempotencyService().isHit(req)) return;
      verified(req.body as Buffer, req.headers);
      counter.runs++;
      reply(res);
    });
  } else {
    const delivery = await deliverer(false);
    release = () => delivery.close();
    app.post('/webhook', express.raw({ type: '*/*' }), async (req, res) => {
      const id = verified(req.body as Buffer, req.headers);
      const result = await delivery.deliver(id);
      if (result === 'in-progress') res.status(409).set('retry-after', '1').end();
      else reply(res);
    });
  }
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    if (!res.headersSent) res.status(res.statusCode >= 400 ? res.statusCode : 500).send(error.message);
  });
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await release();
    },
  };
}

try {
  const server = config.route.startsWith('fastify') ? await fastifyServer() : await expressServer();
  process.on('message', async (message: ParentMessage) => {
    if (message.type === 'runs') send({ type: 'runs', runs: counter.runs });
    else if (message.type === 'reset') {
      counter.runs = 0;
      send({ type: 'runs', runs: 0 });
    } else if (message.type === 'close') {
      await server.close().catch(() => {});
      process.disconnect?.();
      process.exit(0);
    }
  });
  send({ type: 'listening', port: server.port });
} catch (error) {
  send({ type: 'failed', error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  process.exit(1);
}
