import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { HttpResponse } from './http-exchange.js';
import { coreOf, type IdempotencyCoreSource } from './idempotency-core.js';
import { TransactionSlot } from './transaction-slot.js';

/** Options of `honoIdempotencyKey`: the core's options plus how the principal is found. */
export type HonoIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. `c.get('accountId')`); a non-empty string. */
  principal: (c: Context) => string | Promise<string>;
};

async function responseOf(res: Response): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, body: new Uint8Array(await res.clone().arrayBuffer()) };
}

const transactions = new TransactionSlot<Context>('honoTransaction');

/**
 * The one-commit transaction a handler runs in (middleware built with `transaction: true`): the Kysely
 * `Transaction` of the guard's store that also holds the request's `Idempotency-Key` receipt; business rows
 * written through it commit with the stored response, once. `Tx` is the store's transaction type.
 * @throws {InvalidOption} the request runs in no one-commit transaction (other mode, uncovered method, or the
 *   handler already returned).
 * @example const tx = honoTransaction<Transaction<AppDb>>(c);
 */
export function honoTransaction<Tx>(c: Context): Tx {
  return transactions.get<Tx>(c);
}

/** The origin-form target (path and query, as sent) of a request URL. */
function targetOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * Hono 4 middleware for the `Idempotency-Key` header, per route or with `app.use` (the route is the last matched
 * pattern, `routePath(c, -1)`). It reads the body with `c.req.arrayBuffer()`, which Hono caches, so the handler
 * can still call `c.req.json()`; handler errors become `app.onError`'s response (5xx → key released). With
 * `transaction: true` the handler runs inside the one-commit transaction (`honoTransaction(c)`).
 * @throws {InvalidOption} at construction for a bad policy.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example app.post('/v1/payments', honoIdempotencyKey({ guard, principal: (c) => c.get('accountId') }), pay);
 */
export function honoIdempotencyKey(options: HonoIdempotencyOptions): MiddlewareHandler {
  const { principal } = options;
  const core = coreOf(options);
  return async function idempotencyKey(c, next) {
    if (!core.covers(c.req.method)) return next();
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const exchange = {
      method: c.req.method,
      route: routePath(c, -1),
      target: targetOf(c.req.url),
      principal: await principal(c),
      headers,
      body: new Uint8Array(await c.req.arrayBuffer()),
      // Aborted by @hono/node-server (and other runtimes) when the client disconnects.
      signal: c.req.raw.signal,
    };
    const result = await core.handle(exchange, async (tx) => {
      transactions.set(c, tx);
      try {
        await next();
      } finally {
        transactions.clear(c);
      }
      return responseOf(c.res);
    });
    if (result.kind === 'executed') return;
    const { status, headers: out, body } = result.response;
    c.res = undefined;
    c.res = new Response(new Uint8Array(body), { status, headers: out });
  };
}
