import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { expressIdempotencyKey } from '../../packages/payonce/src/http/express-idempotency-key.js';
import { fastifyIdempotencyKey } from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import { honoIdempotencyKey } from '../../packages/payonce/src/http/hono-idempotency-key.js';
import type { HttpExchange } from '../../packages/payonce/src/http/http-exchange.js';
import { createIdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { fastifyWebhooks } from '../../packages/payonce/src/webhooks/fastify-webhooks.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { readFixture } from '../webhooks/fixtures.js';
import { stripeV1 } from '../webhooks/signers.js';

const encode = (text: string) => new TextEncoder().encode(text);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exchange = (overrides: Partial<HttpExchange> = {}): HttpExchange => ({
  method: 'POST',
  route: '/v1/payments',
  target: '/v1/payments',
  principal: 'acct_1',
  headers: { 'idempotency-key': 'k-wait' },
  body: encode('{"amount":1}'),
  ...overrides,
});

describe('Idempotency-Key core: waitForInFlightMs', () => {
  const slowFirst = (waitForInFlightMs: number) => {
    const core = createIdempotencyCore({ guard: new IdempotencyGuard(new MemoryStore()), waitForInFlightMs });
    let runs = 0;
    const next = async () => {
      runs++;
      await sleep(200);
      return { status: 201, headers: { 'content-type': 'application/json' }, body: encode(`{"run":${runs}}`) };
    };
    return { core, next, runs: () => runs };
  };

  it('answers a duplicate that arrives mid-flight with the first response, marked replayed', async () => {
    const { core, next, runs } = slowFirst(2_000);
    const waited: string[] = [];
    core.guard.on('receipt:waited', (event) => waited.push(`${event.end} ${event.waitedMs > 100 ? 'long' : 'short'}`));
    const first = core.handle(exchange(), next);
    await sleep(20);
    const second = await core.handle(exchange(), next);
    expect((await first).kind).toBe('executed');
    expect(second.kind).toBe('replayed');
    expect(second.response.status).toBe(201);
    expect(second.response.headers['idempotent-replayed']).toBe('true');
    expect(Buffer.from(second.response.body).toString()).toBe('{"run":1}');
    expect(runs()).toBe(1);
    expect(waited).toEqual(['changed long']);
  });

  it('keeps 409 + Retry-After without a wait, and when the client goes away mid-wait', async () => {
    const immediate = slowFirst(0);
    const first = immediate.core.handle(exchange(), immediate.next);
    await sleep(20);
    const refused = await immediate.core.handle(exchange(), immediate.next);
    expect(refused.kind).toBe('rejected');
    expect(refused.response.status).toBe(409);
    expect(refused.response.headers['retry-after']).toMatch(/^\d+$/);
    await first;

    const waiting = slowFirst(10_000);
    const running = waiting.core.handle(exchange(), waiting.next);
    await sleep(20);
    const controller = new AbortController();
    const gone = waiting.core.handle(exchange({ signal: controller.signal }), waiting.next);
    await sleep(30);
    const abortedAt = performance.now();
    controller.abort();
    const result = await gone;
    expect(performance.now() - abortedAt).toBeLessThan(100);
    expect(result.response.status).toBe(409);
    await running;
    expect(waiting.runs()).toBe(1);
  });
});

/** POSTs twice with one key, the second 50 ms after the first, to a route that takes 300 ms. */
async function duplicatePair(url: string) {
  const post = () =>
    fetch(url, {
      method: 'POST',
      headers: { 'idempotency-key': 'pair-1', 'content-type': 'application/json', 'x-account': 'acct_1' },
      body: '{"amount":100}',
    });
  const first = post();
  await sleep(50);
  const second = post();
  const [a, b] = await Promise.all([first, second]);
  return {
    a: { status: a.status, body: await a.text() },
    b: { status: b.status, replayed: b.headers.get('idempotent-replayed'), body: await b.text() },
  };
}

describe('Idempotency-Key adapters: a duplicate waits for the first request (waitForInFlightMs 2000)', () => {
  const policy = { waitForInFlightMs: 2_000 } as const;
  const slowRoute = () => {
    let runs = 0;
    const handle = async () => {
      runs++;
      await sleep(300);
      return `{"payment":${runs}}`;
    };
    return { handle, runs: () => runs };
  };

  it('fastify', async () => {
    const app = Fastify();
    const route = slowRoute();
    const guard = new IdempotencyGuard(new MemoryStore());
    await app.register(fastifyIdempotencyKey({ guard, ...policy, principal: (r) => String(r.headers['x-account']) }));
    app.post('/v1/payments', async (_request, reply) =>
      reply
        .code(201)
        .type('application/json')
        .send(await route.handle()),
    );
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { a, b } = await duplicatePair(`${url}/v1/payments`);
      expect(a).toEqual({ status: 201, body: '{"payment":1}' });
      expect(b).toEqual({ status: 201, replayed: 'true', body: '{"payment":1}' });
      expect(route.runs()).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('fastify: a client that disconnects while its duplicate waits stops the wait at once', async () => {
    const app = Fastify();
    const guard = new IdempotencyGuard(new MemoryStore());
    const waits: { end: string; waitedMs: number }[] = [];
    guard.on('receipt:waited', ({ end, waitedMs }) => waits.push({ end, waitedMs }));
    await app.register(fastifyIdempotencyKey({ guard, waitForInFlightMs: 10_000, principal: () => 'acct_1' }));
    app.post('/v1/payments', async (_request, reply) => {
      await sleep(1_500);
      return reply.code(201).send('{"payment":1}');
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const post = (signal?: AbortSignal) =>
        fetch(`${url}/v1/payments`, { method: 'POST', headers: { 'idempotency-key': 'gone-1' }, body: '{}', signal });
      const first = post();
      await sleep(100);
      const controller = new AbortController();
      const second = post(controller.signal).catch((error: unknown) => error);
      await sleep(150);
      controller.abort();
      await second;
      await sleep(150);
      expect(waits).toHaveLength(1);
      expect(waits[0]?.end).toBe('aborted');
      expect(waits[0]?.waitedMs).toBeLessThan(1_000);
      expect((await first).status).toBe(201);
    } finally {
      await app.close();
    }
  });

  it('express', async () => {
    const app = express();
    const route = slowRoute();
    const guard = new IdempotencyGuard(new MemoryStore());
    app.post(
      '/v1/payments',
      expressIdempotencyKey({ guard, ...policy, principal: (r) => String(r.get('x-account')) }),
      async (_req, res) => {
        res
          .status(201)
          .type('application/json')
          .send(await route.handle());
      },
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { a, b } = await duplicatePair(`http://127.0.0.1:${port}/v1/payments`);
      expect(a).toEqual({ status: 201, body: '{"payment":1}' });
      expect(b).toEqual({ status: 201, replayed: 'true', body: '{"payment":1}' });
      expect(route.runs()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('hono', async () => {
    const app = new Hono();
    const route = slowRoute();
    const guard = new IdempotencyGuard(new MemoryStore());
    app.post(
      '/v1/payments',
      honoIdempotencyKey({ guard, ...policy, principal: (c) => c.req.header('x-account') ?? '' }),
      async (c) => c.body(await route.handle(), 201, { 'content-type': 'application/json' }),
    );
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { a, b } = await duplicatePair(`http://127.0.0.1:${port}/v1/payments`);
      expect(a).toEqual({ status: 201, body: '{"payment":1}' });
      expect(b).toEqual({ status: 201, replayed: 'true', body: '{"payment":1}' });
      expect(route.runs()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('webhook intake: a redelivery waits for the in-flight delivery (waitForInFlightMs)', () => {
  const secret = 'whsec_wait_test_secret';
  const fixture = readFixture('stripe/payloads/charge.refunded.json') as { raw_body: string };
  const body = encode(fixture.raw_body);

  async function intakeServer(waitForInFlightMs: number) {
    let runs = 0;
    const intake = createWebhookIntake({
      guard: new IdempotencyGuard(new MemoryStore()),
      waitForInFlightMs,
      endpoints: {
        stripe: {
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [secret] }),
          handler: async () => {
            runs++;
            await sleep(300);
            return { handled: runs };
          },
        },
      },
    });
    const app = Fastify();
    await app.register(fastifyWebhooks(intake));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const deliver = () => {
      const t = Math.floor(Date.now() / 1000);
      return fetch(`${url}/webhooks/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${stripeV1(secret, t, body)}` },
        body,
      });
    };
    return { app, deliver, runs: () => runs };
  }

  it('answers the redelivery 200 with the stored acknowledgement instead of 409, the handler ran once', async () => {
    const server = await intakeServer(2_000);
    try {
      const first = server.deliver();
      await sleep(50);
      const second = await server.deliver();
      const firstResponse = await first;
      expect(firstResponse.status).toBe(200);
      expect(second.status).toBe(200);
      expect(await second.text()).toBe(await firstResponse.text());
      expect(server.runs()).toBe(1);
    } finally {
      await server.app.close();
    }
  });

  it('still answers 409 + Retry-After when the wait is shorter than the delivery', async () => {
    const server = await intakeServer(50);
    try {
      const first = server.deliver();
      await sleep(50);
      const second = await server.deliver();
      expect(second.status).toBe(409);
      expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await first).status).toBe(200);
      expect(server.runs()).toBe(1);
    } finally {
      await server.app.close();
    }
  });
});
