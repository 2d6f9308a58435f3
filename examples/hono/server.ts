/**
 * Hono 4 example (on Node through @hono/node-server): `POST /v1/payments` and `POST /v1/payments/:id/refunds`
 * behind the Idempotency-Key layer.
 * Run: `npx tsx examples/hono/server.ts` (PORT, PAYONCE_SQLITE_PATH optional), then
 * `curl -X POST localhost:3000/v1/payments -H 'Authorization: Bearer sk_test_acme' \
 *    -H 'Idempotency-Key: "order-1001"' -H 'Content-Type: application/json' -d '{"amount":1999,"currency":"EUR"}'`
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { honoIdempotencyKey } from '../../packages/payonce/src/http/hono-idempotency-key.js';
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
import {
  accountOf,
  createPayment,
  demoAccounts,
  demoCharge,
  internalError,
  unauthorized,
} from '../shared/payments-api.js';

type Env = { Variables: { account: string } };

const toResponse = ({ status, headers, body }: HttpResponse): Response =>
  new Response(new Uint8Array(body), { status, headers });

/** Builds the example app; serve `app.fetch`. `idempotency.purge()` deletes expired keys. */
export function createHonoApp(options: ExampleAppOptions): { app: Hono<Env>; idempotency: IdempotencyCore } {
  const idempotency = createIdempotencyCore({ ...options.policy, guard: options.guard, storedHeaders: STORED_HEADERS });
  const app = new Hono<Env>();
  // A thrown error becomes a 500 problem (which releases the Idempotency-Key); only its class name is logged.
  app.onError((error, c) => {
    console.error(`${c.req.method} ${c.req.path} failed: ${error.name}`);
    return toResponse(internalError());
  });
  app.use(async (c, next) => {
    const account = accountOf(options, c.req.header('authorization'));
    if (account === undefined) return toResponse(unauthorized());
    c.set('account', account);
    await next();
  });
  app.use('/v1/*', honoIdempotencyKey({ core: idempotency, principal: (c) => c.get('account') }));
  const body = async (c: { req: { arrayBuffer(): Promise<ArrayBuffer> } }) => new Uint8Array(await c.req.arrayBuffer());
  app.post('/v1/payments', async (c) => toResponse(await createPayment(options, c.get('account'), await body(c))));
  app.post('/v1/payments/:id/refunds', async (c) =>
    toResponse(await createPayment(options, c.get('account'), await body(c), c.req.param('id'))),
  );
  return { app, idempotency };
}

if (isMain(import.meta.url)) {
  const { guard } = await exampleGuard();
  const { app, idempotency } = createHonoApp({ guard, charge: demoCharge, accounts: demoAccounts });
  schedulePurge(() => idempotency.purge());
  serve({ fetch: app.fetch, port: examplePort(), hostname: '127.0.0.1' }, (info) => {
    console.log(`listening on http://127.0.0.1:${info.port}`);
  });
}
