import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { expressWebhooks } from '../../../packages/payonce/src/webhooks/express-webhooks.js';
import { fastifyWebhooks } from '../../../packages/payonce/src/webhooks/fastify-webhooks.js';
import { honoWebhooks } from '../../../packages/payonce/src/webhooks/hono-webhooks.js';
import type { WebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';

/** The three frameworks a webhook route exists for. */
export type Framework = 'fastify' | 'express' | 'hono';
export const FRAMEWORKS: readonly Framework[] = ['fastify', 'express', 'hono'];

/** A listening app serving `POST /webhooks/:provider` for an intake. */
export interface WebhookApp {
  readonly url: string;
  close(): Promise<void>;
}

function addressOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts `framework`'s webhook route for `intake` on a free loopback port, as a user would mount it. */
export async function startWebhookApp(framework: Framework, intake: WebhookIntake): Promise<WebhookApp> {
  if (framework === 'fastify') {
    const app = Fastify();
    await app.register(fastifyWebhooks(intake));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: addressOf(app.server), close: () => app.close() };
  }
  if (framework === 'express') {
    const app = express();
    app.use(expressWebhooks(intake));
    app.use(express.json()); // after the webhook router: it never sees webhook bodies
    const server = createServer(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: addressOf(server), close: () => closeServer(server) };
  }
  const app = new Hono();
  app.route('/', honoWebhooks(intake));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await once(server, 'listening');
  return { url: addressOf(server), close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** An answer as received: status, lower-case headers, exact body bytes and text. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  readonly text: string;
}

/** POSTs `body` (exact bytes) to `url` with `headers` and reads the whole answer. */
export async function postBytes(
  url: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: Buffer.from(bytes).toString('utf8') };
}
