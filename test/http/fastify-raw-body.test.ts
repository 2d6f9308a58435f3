import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../src/core/idempotency-guard.js';
import { fastifyIdempotencyKey, fastifyRawBody } from '../../src/http/fastify-idempotency-key.js';
import { MemoryStore } from '../../src/stores/memory/memory-store.js';

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start() {
  const app = Fastify();
  apps.push(app);
  let runs = 0;
  await app.register(
    fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal: () => 'acct' }),
  );
  // fastify's own JSON parser stays in place: the plugin only tees the bytes it reads.
  app.post('/pay', async (request) => {
    runs++;
    return { parsed: request.body, raw: fastifyRawBody(request).toString('utf8') };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, runs: () => runs };
}

const send = (url: string, body: string | undefined, key = 'k-1') =>
  fetch(`${url}/pay`, {
    method: 'POST',
    headers:
      body === undefined ? { 'idempotency-key': key } : { 'idempotency-key': key, 'content-type': 'application/json' },
    body,
  });

describe('fastifyIdempotencyKey with fastify’s own JSON parser (loopback)', () => {
  it('fingerprints the raw bytes while the handler still gets the parsed body', async () => {
    const { url, runs } = await start();
    const first = await send(url, '{"b":1,"a":2}');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ parsed: { b: 1, a: 2 }, raw: '{"b":1,"a":2}' });
    expect((await send(url, '{"a":2,"b":1}')).status).toBe(422); // same object, other bytes
    const replay = await send(url, '{"b":1,"a":2}');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(runs()).toBe(1);
  });

  it('fingerprints an empty body for a POST without one', async () => {
    const { url, runs } = await start();
    expect((await send(url, undefined, 'k-empty')).status).toBe(200);
    expect((await send(url, undefined, 'k-empty')).headers.get('idempotent-replayed')).toBe('true');
    expect((await send(url, '{}', 'k-empty')).status).toBe(422);
    expect(runs()).toBe(1);
  });
});

describe('fastifyIdempotencyKey when the principal lookup fails (app.inject)', () => {
  it.each([
    ['an Error', () => Promise.reject(new Error('auth backend down'))],
    ['undefined', () => Promise.reject(undefined)],
  ])('a principal promise rejected with %s is a 500 and the route never runs', async (_label, principal) => {
    const app = Fastify();
    apps.push(app);
    let runs = 0;
    await app.register(fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal }));
    app.post('/pay', async () => {
      runs++;
      return { ok: true };
    });
    const response = await app.inject({
      method: 'POST',
      url: '/pay',
      headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(500);
    expect(runs).toBe(0);
  });
});
