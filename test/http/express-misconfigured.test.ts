import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { expressIdempotencyKey } from '../../packages/payonce/src/http/express-idempotency-key.js';
import { HTTP_PROBLEMS } from '../../packages/payonce/src/http/problem-status.js';
import { problemType } from '../../packages/payonce/src/problem/problem-details.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

// Issue #11 item 16: the express adapter with a principal that resolves to nothing answered express's HTML 500
// page. A payonce error of the adapter is answered as problem+json like every other answer of the adapter; an
// error of the application's own `principal` still reaches the application's error handler.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
});

async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function appWith(principal: (req: Request) => string | Promise<string>, onRoute: () => void): Express {
  const app = express();
  app.post(
    '/pay',
    expressIdempotencyKey({ guard: new IdempotencyGuard(new MemoryStore()), principal }),
    (_req, res) => {
      onRoute();
      res.status(201).json({ ok: true });
    },
  );
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(418).json({ appHandled: error.message });
  });
  return app;
}

const pay = (url: string) =>
  fetch(`${url}/pay`, {
    method: 'POST',
    headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' },
    body: '{"amount":1}',
  });

describe('expressIdempotencyKey with a principal that resolves to nothing', () => {
  it.each<[string, () => string]>([
    ['undefined', () => undefined as unknown as string],
    ['an empty string', () => ''],
  ])('answers problem+json 500 INVALID_OPTION when the principal is %s, and runs nothing', async (_kind, principal) => {
    let runs = 0;
    const url = await listen(appWith(principal, () => runs++));
    const reply = await pay(url);
    expect(reply.status).toBe(500);
    expect(reply.headers.get('content-type')).toBe('application/problem+json');
    const body = (await reply.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: problemType('INVALID_OPTION'),
      title: HTTP_PROBLEMS.INVALID_OPTION.title,
      status: 500,
      code: 'INVALID_OPTION',
    });
    expect(String(body.detail)).toContain('principal');
    expect(runs).toBe(0);
  });

  it("passes an error thrown by the application's own principal to the application's error handler", async () => {
    const url = await listen(
      appWith(
        () => {
          throw new Error('not signed in');
        },
        () => {},
      ),
    );
    const reply = await pay(url);
    expect(reply.status).toBe(418);
    expect(await reply.json()).toEqual({ appHandled: 'not signed in' });
  });
});
