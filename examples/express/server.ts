/**
 * Express 5 example: `POST /v1/payments` and `POST /v1/payments/:id/refunds` behind the Idempotency-Key layer.
 * Run: `npx tsx examples/express/server.ts` (PORT, PAYONCE_SQLITE_PATH optional), then
 * `curl -X POST localhost:3000/v1/payments -H 'Authorization: Bearer sk_test_acme' \
 *    -H 'Idempotency-Key: "order-1001"' -H 'Content-Type: application/json' -d '{"amount":1999,"currency":"EUR"}'`
 */
import express, { type Express, type Response } from 'express';
import { expressIdempotencyKey, expressRawBody } from '../../packages/payonce/src/http/express-idempotency-key.js';
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

function send(res: Response, { status, headers, body }: HttpResponse): void {
  res.status(status).set(headers).send(Buffer.from(body));
}

/** Builds the example app; `idempotency.purge()` deletes expired keys. */
export function createExpressApp(options: ExampleAppOptions): { app: Express; idempotency: IdempotencyCore } {
  const idempotency = createIdempotencyCore({ ...options.policy, guard: options.guard, storedHeaders: STORED_HEADERS });
  const app = express();
  app.use((req, res, next) => {
    const account = accountOf(options, req.get('authorization'));
    if (account === undefined) return send(res, unauthorized());
    res.locals.account = account;
    next();
  });
  const idempotencyKey = expressIdempotencyKey({
    core: idempotency,
    principal: (req) => String(req.res?.locals.account),
  });
  app.post('/v1/payments', idempotencyKey, async (req, res) => {
    send(res, await createPayment(options, res.locals.account, expressRawBody(req)));
  });
  app.post('/v1/payments/:id/refunds', idempotencyKey, async (req, res) => {
    send(res, await createPayment(options, res.locals.account, expressRawBody(req), String(req.params.id)));
  });
  return { app, idempotency };
}

if (isMain(import.meta.url)) {
  const { guard } = await exampleGuard();
  const { app, idempotency } = createExpressApp({ guard, charge: demoCharge, accounts: demoAccounts });
  schedulePurge(() => idempotency.purge());
  const server = app.listen(examplePort(), '127.0.0.1', () => {
    const address = server.address();
    console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}`);
  });
}
