import { describe, expect, it } from 'vitest';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { type Answer, call, until } from './service-harness.js';
import { cleanupWhenFinished, expectStoreUnavailable, serviceBehindSilentDatabase } from './silent-database.js';

/** A generous bound: a request to the service must be answered within it, whatever the database does. */
const ANSWER_WITHIN_MS = 30_000;

function answered<T>(request: Promise<Answer<T>>, what: string): Promise<Answer<T>> {
  return Promise.race([
    request,
    new Promise<never>((_resolve, reject) => {
      setTimeout(
        () => reject(new Error(`${what} not answered within ${ANSWER_WITHIN_MS} ms`)),
        ANSWER_WITHIN_MS,
      ).unref();
    }),
  ]);
}

/**
 * `POST /orders` until it answers 201. The service's store timeout is 300 ms here, so on a loaded host a first
 * statement through the listener can outlast it and be answered 503 + Retry-After, as the service should; a client
 * retries, and so does the test before it freezes the database (the freeze is what is tested).
 */
function createOrder(baseUrl: string, amountMinor: number): Promise<Answer<{ order: { id: string } }>> {
  return until(
    async () => {
      const created = await call<{ order: { id: string } }>(baseUrl, 'POST', '/orders', {
        body: { amountMinor, currency: 'EUR' },
      });
      if (created.status === 201) return created;
      expectStoreUnavailable(created, 'POST /orders before the freeze');
      return null;
    },
    60_000,
    'POST /orders 201',
  );
}

const dialects = [
  { name: 'PostgreSQL', namespace: createPostgresNamespace, port: '5432' },
  { name: 'MariaDB', namespace: createMysqlNamespace, port: '3306' },
] as const;

// All four tests run at once (describe.concurrent): each has its own namespace, listener and service, and spends its
// time waiting for timeouts and reconnects.
describe.concurrent.each(dialects)(
  'reference service whose $name accepts TCP and never answers (issue 34 item H1)',
  (dialect) => {
    it('listens, answers 503 + Retry-After and /healthz starting, then becomes ready once the database answers', async ({
      onTestFinished,
    }) => {
      const defer = cleanupWhenFinished(onTestFinished);
      const { database, h } = await serviceBehindSilentDatabase(await dialect.namespace(), dialect.port, defer);

      const health = await answered(call(h.service.url, 'GET', '/healthz'), '/healthz');
      expect(health.status).toBe(503);
      expect(health.body.status).toBe('starting');
      expect(health.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expectStoreUnavailable(
        await answered(call(h.service.url, 'GET', '/orders/some-order'), 'GET'),
        'GET /orders/:id',
      );
      expectStoreUnavailable(
        await answered(call(h.service.url, 'POST', '/orders', { body: { amountMinor: 500, currency: 'EUR' } }), 'POST'),
        'POST /orders',
      );

      database.answer();
      await until(async () => (await call(h.service.url, 'GET', '/healthz')).status === 200, 60_000, '/healthz 200');
      const created = await createOrder(h.service.url, 500);
      expect(created.status).toBe(201);
    }, 120_000);
  },
);

describe.concurrent.each(dialects)('reference service whose $name freezes while it runs (items H1, 17)', (dialect) => {
  it('answers GET /orders/:id and POST /orders 503 + Retry-After instead of hanging, then serves again', async ({
    onTestFinished,
  }) => {
    const defer = cleanupWhenFinished(onTestFinished);
    const { database, h } = await serviceBehindSilentDatabase(await dialect.namespace(), dialect.port, defer, true);
    const created = await createOrder(h.service.url, 700);
    expect(created.status).toBe(201);

    database.freeze();
    const path = `/orders/${created.body.order.id}`;
    expectStoreUnavailable(await answered(call(h.service.url, 'GET', path), 'GET'), 'GET /orders/:id');
    expectStoreUnavailable(
      await answered(call(h.service.url, 'POST', '/orders', { body: { amountMinor: 700, currency: 'EUR' } }), 'POST'),
      'POST /orders',
    );

    // The frozen connections were given up (not kept in the pool): once the database answers again, so does the service.
    database.answer();
    await until(async () => (await call(h.service.url, 'GET', path)).status === 200, 60_000, 'GET /orders/:id 200');
  }, 120_000);
});
