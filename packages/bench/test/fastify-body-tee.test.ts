import { request } from 'node:http';
import Fastify from 'fastify';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { fastifyIdempotencyKey, fastifyRawBody } from 'payonce/internal/http/fastify-idempotency-key.js';
import { MemoryStore } from 'payonce/internal/stores/memory/memory-store.js';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The fastify adapter's body tee (a Readable fed from the request stream, which replaced a piped PassThrough for
 * speed) on a real socket: a body sent in many chunks with pauses, bytes that are not UTF-8, a body larger than
 * fastify's `bodyLimit`, and a client that goes away mid-body.
 */
const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(bodyLimit?: number) {
  const app = Fastify(bodyLimit === undefined ? {} : { bodyLimit });
  apps.push(app);
  let runs = 0;
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  );
  await app.register(
    fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal: () => 'acct' }),
  );
  app.post('/upload', async (req, reply) => {
    runs++;
    const raw = fastifyRawBody(req);
    const parsed = req.body as Buffer;
    return reply.send({ rawHex: raw.toString('hex'), same: Buffer.compare(raw, parsed) === 0 });
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: Number(new URL(url).port), runs: () => runs };
}

/**
 * Sends `chunks` one at a time with a pause between them; resolves with status and body text. With `end: false` the
 * request is left unfinished after the last chunk (no further write that could race a server which answered and
 * closed: an EPIPE then failed the request before its response was read) and is destroyed once answered.
 */
function sendChunked(port: number, key: string, chunks: readonly Buffer[], pauseMs = 5, end = true) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/upload',
        headers: { 'content-type': 'application/octet-stream', 'idempotency-key': `"${key}"` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => {
          text += part;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
          if (!end) req.destroy();
        });
      },
    );
    req.on('error', reject);
    let i = 0;
    const next = () => {
      if (i === chunks.length) {
        if (end) req.end();
        return;
      }
      req.write(chunks[i++]);
      setTimeout(next, pauseMs);
    };
    next();
  });
}

describe('fastifyIdempotencyKey body tee (loopback)', () => {
  it('keeps every byte of a body that arrives in many chunks, not UTF-8, and fingerprints exactly those bytes', async () => {
    const { port, runs } = await start();
    const chunks = Array.from({ length: 12 }, (_, i) => Buffer.from([0xff, 0xfe, i, 0x00, 0xc3]));
    const whole = Buffer.concat(chunks);
    const first = await sendChunked(port, 'k-chunks', chunks);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).toEqual({ rawHex: whole.toString('hex'), same: true });
    // The same bytes in other chunk boundaries replay; one byte changed is another request (422).
    expect((await sendChunked(port, 'k-chunks', [whole.subarray(0, 7), whole.subarray(7)])).status).toBe(200);
    const changed = Buffer.from(whole);
    changed[3] = 0x01;
    expect((await sendChunked(port, 'k-chunks', [changed])).status).toBe(422);
    expect(runs()).toBe(1);
  });

  it('a body larger than bodyLimit is refused with 413 and the handler never runs', async () => {
    const { port, runs } = await start(1_024);
    // 1 536 bytes in three chunks, the last one past the limit, and nothing written after it: the server answers 413
    // as soon as the limit is passed, without waiting for the body to end.
    const big = Array.from({ length: 3 }, () => Buffer.alloc(512, 0x61));
    const response = await sendChunked(port, 'k-big', big, 1, false);
    expect(response.status).toBe(413);
    expect(runs()).toBe(0);
  });

  it('a client that disconnects mid-body leaves the server serving the next request', async () => {
    const { port, runs } = await start();
    await new Promise<void>((resolve) => {
      const req = request({
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/upload',
        headers: { 'content-type': 'application/octet-stream', 'idempotency-key': '"k-gone"', 'content-length': 100 },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(10, 0x62));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 20);
    });
    const after = await sendChunked(port, 'k-gone', [Buffer.from('after')]);
    expect(after.status).toBe(200);
    expect(runs()).toBe(1);
  });
});
