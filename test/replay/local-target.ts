import Fastify, { type FastifyInstance } from 'fastify';

/** One request as the local target received it. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A small fastify service standing in for the reference service: records what arrives, answers by path. */
export interface LocalTarget {
  readonly url: string;
  readonly received: Received[];
  /** Most requests in flight at once. */
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the local target on an ephemeral port. Routes (any method, under any prefix):
 * `…/ok` 200 `{"received":true}` after `delayMs`; `…/quick` 204 at once; `…/refuse` 401 problem+json `WEBHOOK_SIGNATURE_INVALID`;
 * `…/fail` 500; `…/slow` answers after 2 s; `…/dedupe` answers per `x-event-id` like the intake: the first
 * request 200 (after `delayMs`, and not before a concurrent copy was answered 409 — at most 10 s —, so parallel
 * copies overlap whatever the machine's load), a concurrent one 409, later ones the same 200 with
 * `Idempotent-Replayed: true`.
 */
export async function startLocalTarget(delayMs = 0): Promise<LocalTarget> {
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const received: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const events = new Map<string, 'running' | 'done'>();
  /** Per event id: resolves the first request's wait once a concurrent copy got its 409. */
  const overlapped = new Map<string, () => void>();
  app.all('/*', async (request, reply) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      received.push({
        method: request.method,
        url: request.url,
        headers: { ...request.headers },
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      const route = request.url.split('?')[0]!.split('/').pop();
      if (route === 'ok') {
        await sleep(delayMs);
        return reply.status(200).type('application/json').send('{"received":true}');
      }
      if (route === 'quick') return reply.status(204).send();
      if (route === 'refuse') {
        return reply
          .status(401)
          .type('application/problem+json')
          .send(JSON.stringify({ status: 401, code: 'WEBHOOK_SIGNATURE_INVALID' }));
      }
      if (route === 'fail') return reply.status(500).send('boom');
      if (route === 'slow') {
        await sleep(2_000);
        return reply.status(200).send('late');
      }
      if (route === 'dedupe') {
        const id = String(request.headers['x-event-id']);
        const state = events.get(id);
        if (state === 'running') {
          overlapped.get(id)?.();
          return reply.status(409).header('retry-after', '1').send('');
        }
        if (state === 'done') {
          return reply.status(200).header('idempotent-replayed', 'true').send(`{"event":"${id}"}`);
        }
        events.set(id, 'running');
        await Promise.race([new Promise<void>((resolve) => overlapped.set(id, resolve)), sleep(10_000)]);
        overlapped.delete(id);
        await sleep(delayMs);
        events.set(id, 'done');
        return reply.status(200).send(`{"event":"${id}"}`);
      }
      return reply.status(404).send('');
    } finally {
      inFlight--;
    }
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, received, maxInFlight: () => maxInFlight, close: () => app.close() };
}
