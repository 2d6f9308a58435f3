/**
 * Fastify 5 example: `POST /v1/payments` and `POST /v1/payments/:id/refunds` behind the Idempotency-Key layer.
 * Run: `npx tsx examples/fastify/server.ts` (PORT, PAYONCE_SQLITE_PATH optional), then
 * `curl -X POST localhost:3000/v1/payments -H 'Authorization: Bearer sk_test_acme' \
 *    -H 'Idempotency-Key: "order-1001"' -H 'Content-Type: application/json' -d '{"amount":1999,"currency":"EUR"}'`
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { fastifyIdempotencyKey, fastifyRawBody } from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import type { HttpResponse } from '../../packages/payonce/src/http/http-exchange.js';
import { createIdempotencyCore, type IdempotencyCore } from '../../packages/payonce/src/http/idempotency-core.js';
import {
  type ExampleAppOptions,
  exampleGuard,
  examplePort,
  isMain,
  STORED_HEADERS,
  schedulePurge,
} from '../shared/example-options.js';
import { accountOf, createPayment, demoAccounts, demoCharge, unauthorized } from '../shared/payments-api.js';

const accounts = new WeakMap<FastifyRequest, string>();

function send(reply: FastifyReply, { status, headers, body }: HttpResponse): FastifyReply {
  return reply.code(status).headers(headers).send(Buffer.from(body));
}

/** Builds the example app (not yet listening); `idempotency.purge()` deletes expired keys. */
export async function createFastifyApp(
  options: ExampleAppOptions,
): Promise<{ app: FastifyInstance; idempotency: IdempotencyCore }> {
  const idempotency = createIdempotencyCore({ ...options.policy, guard: options.guard, storedHeaders: STORED_HEADERS });
  const app = Fastify();
  // The handler parses the raw bytes itself (as the other examples do); fastify still enforces its body limit.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.addHook('onRequest', async (request, reply) => {
    const account = accountOf(options, request.headers.authorization);
    if (account === undefined) return send(reply, unauthorized());
    accounts.set(request, account);
  });
  await app.register(fastifyIdempotencyKey({ core: idempotency, principal: (request) => accounts.get(request) ?? '' }));
  app.post('/v1/payments', async (request, reply) =>
    send(reply, await createPayment(options, accounts.get(request) ?? '', fastifyRawBody(request))),
  );
  app.post<{ Params: { id: string } }>('/v1/payments/:id/refunds', async (request, reply) =>
    send(reply, await createPayment(options, accounts.get(request) ?? '', fastifyRawBody(request), request.params.id)),
  );
  return { app, idempotency };
}

if (isMain(import.meta.url)) {
  const { guard } = await exampleGuard();
  const { app, idempotency } = await createFastifyApp({ guard, charge: demoCharge, accounts: demoAccounts });
  schedulePurge(() => idempotency.purge());
  const address = await app.listen({ port: examplePort(), host: '127.0.0.1' });
  console.log(`listening on ${address}`);
}
