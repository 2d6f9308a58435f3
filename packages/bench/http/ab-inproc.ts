/**
 * In-process A/B of fastify routes on MemoryStore, for CPU per request without the drift of fresh processes (issue
 * #17 item 3). Each side is one fastify app on loopback in THIS process: `bare` (a Map write), `hooks` (bare plus
 * three no-op preParsing / preHandler / onSend hooks), `guard:TREE` (the route calls `guard.run` of TREE's src),
 * or `TREE` (TREE's `fastifyIdempotencyKey`; TREE is a directory holding a `src/`, e.g. a copy of main). A lean
 * raw-socket client (8 keep-alive connections, prebuilt request bytes, no signature) drives one app at a time;
 * rounds alternate the order. Prints process CPU (user + system) per request, client included (the same for every
 * side), and each side's per-round ratio to the first side. The guard's AsyncLocalStorage turns promise hooks on
 * for the whole process once any guard ran, so sides of one run share that cost; run a tree without it in a
 * process of its own to see it.
 *   node --import tsx http/ab-inproc.ts ROUNDS REQUESTS SIDE [SIDE…]
 *   node --import tsx http/ab-inproc.ts 8 20000 bare guard:. /work/main .
 * ROUNDS 0 runs each side's first, untimed round only and prints nothing (for `instructions.ts`).
 */
import net from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';

const [roundsText = '8', requestsText = '20000', ...sides] = process.argv.slice(2);
const REPLY = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };

async function app(side: string): Promise<number> {
  const fastify = Fastify({ logger: false });
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_r, raw, done) => done(null, raw));
  if (side === 'hooks') {
    fastify.addHook('preParsing', (_q, _r, payload, done) => done(null, payload));
    fastify.addHook('preHandler', (_q, _r, done) => done());
    fastify.addHook('onSend', (_q, _r, payload, done) => done(null, payload));
  }
  if (side.startsWith('guard:')) {
    const dir = side.slice(6);
    const url = (path: string) => pathToFileURL(resolve(dir, 'src', path)).href;
    const { IdempotencyGuard } = await import(url('core/idempotency-guard.ts'));
    const { RequestKey } = await import(url('core/request-key.ts'));
    const { MemoryStore } = await import(url('stores/memory/memory-store.ts'));
    const guard = new IdempotencyGuard(new MemoryStore());
    fastify.post('/webhook', async (request, reply) => {
      const id = String(request.headers['idempotency-key']);
      await guard.run(new RequestKey('bench', id), () => REPLY, { payload: request.body as string });
      return reply.code(REPLY.status).headers(REPLY.headers).send(REPLY.body);
    });
  } else if (side === 'bare' || side === 'hooks') {
    const seen = new Map<string, number>();
    fastify.post('/webhook', async (request, reply) => {
      seen.set(String(request.headers['idempotency-key']), 1);
      return reply.code(REPLY.status).headers(REPLY.headers).send(REPLY.body);
    });
  } else {
    const url = (path: string) => pathToFileURL(resolve(side, 'src', path)).href;
    const { IdempotencyGuard } = await import(url('core/idempotency-guard.ts'));
    const { MemoryStore } = await import(url('stores/memory/memory-store.ts'));
    const { fastifyIdempotencyKey, fastifyRawBody } = await import(url('http/fastify-idempotency-key.ts'));
    await fastify.register(
      fastifyIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal: () => 'bench' }),
    );
    fastify.post('/webhook', async (request, reply) => {
      fastifyRawBody(request);
      return reply.code(REPLY.status).headers(REPLY.headers).send(REPLY.body);
    });
  }
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return (fastify.server.address() as net.AddressInfo).port;
}

function requestBytes(id: string): Buffer {
  const body = `{"id":"${id}","type":"payment.succeeded","amount":4200}`;
  return Buffer.from(
    `POST /webhook HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nidempotency-key: "${id}"\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

async function round(port: number, requests: number, prefix: string): Promise<number> {
  const payloads = Array.from({ length: requests }, (_, i) => requestBytes(`${prefix}-${i}`));
  let next = 0;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from(
      { length: 8 },
      () =>
        new Promise<void>((done, fail) => {
          const socket = net.connect(port, '127.0.0.1');
          socket.setNoDelay(true);
          let pending = '';
          const send = () => {
            if (next >= requests) return socket.end(done);
            socket.write(payloads[next++]!);
          };
          socket.on('connect', send);
          socket.on('error', fail);
          socket.on('data', (chunk: Buffer) => {
            pending += chunk.toString('latin1');
            if (!pending.endsWith('{"received":true}')) return;
            if (!pending.startsWith('HTTP/1.1 200')) return fail(new Error(pending));
            pending = '';
            send();
          });
        }),
    ),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

const ports = await Promise.all(sides.map(app));
const requests = Number(requestsText);
for (let s = 0; s < sides.length; s++) await round(ports[s]!, requests, `w${s}`);
const costs: number[][] = sides.map(() => []);
for (let r = 0; r < Number(roundsText); r++) {
  const order = sides.map((_, s) => s);
  if (r % 2 === 1) order.reverse();
  for (const s of order) costs[s]!.push(await round(ports[s]!, requests, `r${r}s${s}`));
  console.log(
    `round ${r}: ${sides.map((side, s) => `${side.split('/').pop()} ${costs[s]!.at(-1)!.toFixed(1)}`).join('  ')} µs`,
  );
}
// ROUNDS 0 runs only the untimed first round of each side (`instructions.ts` counts it under valgrind).
if (Number(roundsText) === 0) process.exit(0);
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
for (let s = 0; s < sides.length; s++) {
  const ratios = costs[s]!.map((c, r) => c / costs[0]![r]!);
  console.log(
    `${sides[s]}: median ${median(costs[s]!).toFixed(1)} µs/request, ÷ first side per round median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`,
  );
}
process.exit(0);
