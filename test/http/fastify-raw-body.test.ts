import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { fastifyIdempotencyKey, fastifyRawBody } from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

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

describe('fastifyIdempotencyKey registered twice on one route (loopback)', () => {
  it('keeps each chunk once: the raw body is the bytes sent, in one chunk and in many', async () => {
    const app = Fastify();
    apps.push(app);
    const guard = new IdempotencyGuard(new MemoryStore());
    await app.register(fastifyIdempotencyKey({ guard, principal: () => 'outer' }));
    await app.register(fastifyIdempotencyKey({ guard, principal: () => 'inner', namespace: 'http-inner' }));
    app.post('/pay', async (request) => ({ raw: fastifyRawBody(request).toString('utf8') }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const small = '{"a":1}';
    const large = JSON.stringify({ pad: 'x'.repeat(200_000) }); // arrives in several socket chunks
    for (const [key, body] of [
      ['k-small', small],
      ['k-large', large],
    ] as const) {
      const response = await fetch(`${url}/pay`, {
        method: 'POST',
        headers: { 'idempotency-key': key, 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { raw: string }).raw).toBe(body);
    }
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

async function withPlugin(): Promise<{ app: FastifyInstance }> {
  const app = Fastify();
  apps.push(app);
  await app.register(
    fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal: () => 'acct' }),
  );
  return { app };
}

const post = (app: FastifyInstance, url: string, key: string, payload = '{"a":1}') =>
  app.inject({ method: 'POST', url, headers: { 'idempotency-key': key, 'content-type': 'application/json' }, payload });

describe('fastifyIdempotencyKey: what is read and what is stored (app.inject and loopback)', () => {
  it('an async preParsing hook after the plugin and a custom stream parser still get every byte', async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(
      fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal: () => 'acct' }),
    );
    // Ticks between the plugin's preParsing and the parser: the kept bytes must not start the body flowing early.
    app.addHook('preParsing', async (_request, _reply, payload) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return payload;
    });
    app.addContentTypeParser('text/plain', (_request, payload, done) => {
      let text = '';
      payload.setEncoding('utf8');
      payload.on('data', (chunk: string) => {
        text += chunk;
      });
      payload.on('end', () => done(null, text));
    });
    app.post('/echo', async (request) => ({ parsed: request.body, raw: fastifyRawBody(request).toString('utf8') }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const body = 'é'.repeat(40_000); // several chunks, multi-byte characters across chunk boundaries
    const send = () =>
      fetch(`${url}/echo`, {
        method: 'POST',
        headers: { 'idempotency-key': 'k-t', 'content-type': 'text/plain' },
        body,
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ parsed: body, raw: body });
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['a Buffer', () => Buffer.from([0x00, 0xff, 0x10, 0x80]), 'application/octet-stream'],
    ['a stream', () => Readable.from([Buffer.from('part-1,'), Buffer.from('part-2')]), 'text/csv'],
    ['an object', () => ({ id: 'pay_1', amount: 4200 }), 'application/json; charset=utf-8'],
    ['a string', () => 'plain text', 'text/plain; charset=utf-8'],
  ])('%s reply is sent as fastify serialised it and replayed byte for byte', async (_label, make, type) => {
    const { app } = await withPlugin();
    let runs = 0;
    app.post('/r', async (_request, reply) => {
      runs++;
      const payload = make();
      if (payload instanceof Readable || Buffer.isBuffer(payload)) reply.type(type);
      return reply.code(201).header('location', '/r/1').header('x-not-stored', 'yes').send(payload);
    });
    const first = await post(app, '/r', 'k-r');
    const replay = await post(app, '/r', 'k-r');
    expect(runs).toBe(1);
    expect(first.statusCode).toBe(201);
    expect(first.headers['x-not-stored']).toBe('yes');
    expect(first.headers['content-type']).toBe(type);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(type);
    expect(replay.headers.location).toBe('/r/1');
    expect(replay.headers['x-not-stored']).toBeUndefined();
    expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(first.rawPayload.byteLength).toBeGreaterThan(0);
  });

  it('stores the reply another onSend hook changed before the plugin saw it, and replays that', async () => {
    const { app } = await withPlugin();
    app.post('/s', async () => ({ ok: true }));
    // Registered after the plugin's onSend: it runs later, so the stored bytes are the ones before this hook.
    app.addHook('onSend', async (_request, _reply, payload) => `${String(payload)}\n`);
    const first = await post(app, '/s', 'k-s');
    const replay = await post(app, '/s', 'k-s');
    expect(first.body).toBe('{"ok":true}\n');
    expect(replay.statusCode).toBe(200);
    // The stored bytes are the ones without the newline; the later hook runs on the replay too, so both match.
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe('{"ok":true}\n');
  });
});
