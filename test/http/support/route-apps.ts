import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import {
  expressIdempotencyKey,
  expressRawBody,
  expressStackTransaction,
  expressTransaction,
} from '../../../packages/payonce/src/http/express-idempotency-key.js';
import {
  fastifyIdempotencyKey,
  fastifyRawBody,
  fastifyStackTransaction,
  fastifyTransaction,
} from '../../../packages/payonce/src/http/fastify-idempotency-key.js';
import {
  honoIdempotencyKey,
  honoStackTransaction,
  honoTransaction,
} from '../../../packages/payonce/src/http/hono-idempotency-key.js';
import type { IdempotencyCore } from '../../../packages/payonce/src/http/idempotency-core.js';

/** The three adapters, each a test app with the same route. */
export type Framework = 'express' | 'fastify' | 'hono';
export const FRAMEWORKS: readonly Framework[] = ['express', 'fastify', 'hono'];

/** What the framework-neutral route of a test app sees of its request. */
export interface RouteContext {
  /** The request body, parsed JSON. */
  readonly body: Record<string, unknown>;
  /** The one-commit transaction as payonce's Kysely view (`expressTransaction`, …). */
  payonceTx(): unknown;
  /** The stack's own transaction object (`expressStackTransaction`, …). */
  stackTx(): unknown;
  /**
   * Writes the route's answer (`res.status().set().send()`, `reply.code().headers().send()`, or the `Response` hono
   * returns once the route is done); the route may go on after it.
   */
  answer(status: number, body: string, headers?: Record<string, string>): void;
}

/** An error with the HTTP status the apps' error handlers answer it with (else 500). */
export class RouteError extends Error {
  constructor(
    message: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

/**
 * What every test app's error handler answers: one problem+json body with the error's message (the app's own
 * error handling, as an application writes it).
 */
export function errorAnswer(error: unknown): { status: number; body: string } {
  const status = error instanceof RouteError ? error.status : 500;
  const detail = error instanceof Error ? error.message : String(error);
  return { status, body: JSON.stringify({ title: 'Route failed', status, detail }) };
}

const PROBLEM = 'application/problem+json';

/** A running test app. */
export interface RouteApp {
  readonly url: string;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<RouteApp> {
  if (!server.listening) await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}

const parse = (raw: Uint8Array): Record<string, unknown> =>
  raw.byteLength === 0 ? {} : (JSON.parse(Buffer.from(raw).toString('utf8')) as Record<string, unknown>);

/**
 * Starts `framework`'s app on a loopback port: `POST /v1/payments` behind the Idempotency-Key middleware built on
 * `core` (principal `acct_1`), running `route`; the app's error handler answers `errorAnswer(error)` as problem+json.
 */
export async function startRouteApp(
  framework: Framework,
  core: IdempotencyCore,
  route: (ctx: RouteContext) => Promise<void>,
): Promise<RouteApp> {
  const principal = () => 'acct_1';
  if (framework === 'express') {
    const app = express();
    app.post('/v1/payments', expressIdempotencyKey({ core, principal }), async (req, res) => {
      await route({
        body: parse(expressRawBody(req)),
        payonceTx: () => expressTransaction(req),
        stackTx: () => expressStackTransaction(req),
        answer: (status, body, headers = {}) => {
          res
            .status(status)
            .set({ 'content-type': 'application/json', ...headers })
            .send(body);
        },
      });
    });
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      const { status, body } = errorAnswer(error);
      res.status(status).type(PROBLEM).send(body);
    });
    return listening(createServer(app).listen(0, '127.0.0.1'));
  }
  if (framework === 'fastify') {
    const app = Fastify();
    app.setErrorHandler((error, _request, reply) => {
      const { status, body } = errorAnswer(error);
      return reply.code(status).type(PROBLEM).send(body);
    });
    await app.register(fastifyIdempotencyKey({ core, principal }));
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
    app.post('/v1/payments', async (request, reply) => {
      await route({
        body: parse(fastifyRawBody(request)),
        payonceTx: () => fastifyTransaction(request),
        stackTx: () => fastifyStackTransaction(request),
        answer: (status, body, headers = {}) => {
          reply
            .code(status)
            .headers({ 'content-type': 'application/json', ...headers })
            .send(body);
        },
      });
      return reply;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  }
  const app = new Hono();
  app.onError((error, c) => {
    const { status, body } = errorAnswer(error);
    return c.body(body, status as 500, { 'content-type': PROBLEM });
  });
  app.post('/v1/payments', honoIdempotencyKey({ core, principal }), async (c) => {
    let answer: Response | undefined;
    await route({
      body: parse(new Uint8Array(await c.req.arrayBuffer())),
      payonceTx: () => honoTransaction(c),
      stackTx: () => honoStackTransaction(c),
      answer: (status, body, headers = {}) => {
        answer = c.body(body, status as 201, { 'content-type': 'application/json', ...headers });
      },
    });
    return answer ?? c.body(null, 204);
  });
  return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
}

/** POSTs `body` as JSON to the app's route with `key`; the whole answer, read. */
export async function postPayment(
  app: RouteApp,
  key: string,
  body: Record<string, unknown>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${app.url}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
