import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { type Answer, call, type Harness, startHarness, until } from './service-harness.js';

/** A TCP proxy on a fixed loopback port to the test PostgreSQL, started and stopped at will: the database as the service sees it. */
function databaseProxy(port: number, target: URL) {
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  return {
    async up(): Promise<void> {
      server = createServer((client) => {
        const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket
            .on('error', () => {})
            .on('close', () => {
              sockets.delete(socket);
              client.destroy();
              upstream.destroy();
            });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      await new Promise<void>((resolve) => server!.listen({ host: '127.0.0.1', port }, resolve));
    },
    async down(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      const closing = server;
      server = null;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}

/** A 503 problem+json STORE_UNAVAILABLE answer with a Retry-After of whole seconds. */
function expectStoreUnavailable(answer: Answer, what: string): void {
  expect(answer.status, what).toBe(503);
  expect(answer.headers.get('content-type'), what).toContain('application/problem+json');
  expect(answer.body.code, what).toBe('STORE_UNAVAILABLE');
  expect(answer.headers.get('retry-after'), what).toMatch(/^[1-9]\d*$/);
}

describe('reference service while its PostgreSQL is down (issue 34 items 17 and 19)', () => {
  let h: Harness;
  let proxy: ReturnType<typeof databaseProxy>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const ns = await createPostgresNamespace();
    drop = ns.drop;
    const port = await findFreePort();
    const url = new URL(ns.url);
    const target = new URL(ns.url);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    proxy = databaseProxy(port, target);
    // The database is down when the service starts: it must start anyway.
    h = await startHarness({ databaseUrl: url.toString(), storeTimeoutMs: 500, dropDatabase: async () => {} });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await proxy?.down();
    await drop?.();
  });

  it('starts with the database down, answers 503 + Retry-After and not-ready, then serves once it is up', async () => {
    const health = await call(h.service.url, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('starting');
    expect(health.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expectStoreUnavailable(
      await call(h.service.url, 'POST', '/orders', { body: { amountMinor: 500, currency: 'EUR' } }),
      'POST /orders',
    );
    expectStoreUnavailable(await call(h.service.url, 'GET', '/orders/some-order'), 'GET /orders/:id');
    expectStoreUnavailable(
      await call(h.service.url, 'POST', '/orders/some-order/checkout', { key: 'k-1' }),
      'checkout',
    );
    expect(h.service.background).toBeNull();

    await proxy.up();
    await until(async () => (await call(h.service.url, 'GET', '/healthz')).status === 200, 60_000, '/healthz 200');
    const created = await call<{ order: { id: string } }>(h.service.url, 'POST', '/orders', {
      body: { amountMinor: 500, currency: 'EUR' },
    });
    expect(created.status).toBe(201);
    const view = await call(h.service.url, 'GET', `/orders/${created.body.order.id}`);
    expect(view.status).toBe(200);
    // Migrations ran and the worker loop started once the database answered.
    expect(h.service.background).not.toBeNull();
  }, 90_000);
});

describe('reference service whose PostgreSQL goes down after start (issue 34 item 17)', () => {
  let h: Harness;
  let proxy: ReturnType<typeof databaseProxy>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const ns = await createPostgresNamespace();
    drop = ns.drop;
    const port = await findFreePort();
    const url = new URL(ns.url);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    proxy = databaseProxy(port, new URL(ns.url));
    await proxy.up();
    h = await startHarness({ databaseUrl: url.toString(), storeTimeoutMs: 500, dropDatabase: async () => {} });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await proxy?.down();
    await drop?.();
  });

  it('answers every route 503 problem+json with Retry-After while the database is unreachable', async () => {
    const created = await call<{ order: { id: string } }>(h.service.url, 'POST', '/orders', {
      body: { amountMinor: 700, currency: 'EUR' },
    });
    expect(created.status).toBe(201);
    const id = created.body.order.id;
    await proxy.down();
    expectStoreUnavailable(await call(h.service.url, 'GET', `/orders/${id}`), 'GET /orders/:id');
    expectStoreUnavailable(await call(h.service.url, 'POST', `/orders/${id}/checkout`, { key: 'k-down' }), 'checkout');
    expectStoreUnavailable(
      await call(h.service.url, 'POST', '/orders', { key: 'k-new', body: { amountMinor: 700, currency: 'EUR' } }),
      'POST /orders with a key',
    );
    expectStoreUnavailable(
      await call(h.service.url, 'POST', '/orders', { body: { amountMinor: 700, currency: 'EUR' } }),
      'POST /orders without a key',
    );
    const health = await call(h.service.url, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await proxy.up();
    await until(async () => (await call(h.service.url, 'GET', `/orders/${id}`)).status === 200, 60_000, 'GET 200');
  }, 90_000);
});
