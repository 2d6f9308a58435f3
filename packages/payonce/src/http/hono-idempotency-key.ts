import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../core/store.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { bodyTooLarge } from './body-too-large.js';
import type { HttpResponse } from './http-exchange.js';
import { coreOf, type IdempotencyCoreSource } from './idempotency-core.js';
import { type BodyReadResult, declaresTooLarge, readLimited } from './limited-body.js';
import { TransactionSlot } from './transaction-slot.js';

/** Options of `honoIdempotencyKey`: the core's options plus how the principal is found and a body limit. */
export type HonoIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. `c.get('accountId')`); a non-empty string. */
  principal: (c: Context) => string | Promise<string>;
  /**
   * Largest body the middleware reads, in bytes; a larger declared or actual body is answered 413 problem+json
   * `REQUEST_BODY_TOO_LARGE` by the middleware (before any claim). @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
};

/**
 * The body of a covered request, read at most `limit` bytes far. The request is rebuilt on the bytes read, so the
 * handler can still call `c.req.json()`; a body an earlier middleware already read through `c.req` is taken from
 * Hono's cache.
 */
async function readBody(c: Context, limit: number): Promise<BodyReadResult> {
  if (declaresTooLarge(c.req.header('content-length'), limit)) return { kind: 'too-large' };
  if (c.req.raw.bodyUsed) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return bytes.byteLength > limit ? { kind: 'too-large' } : { kind: 'body', bytes };
  }
  if (c.req.raw.body === null) return { kind: 'body', bytes: new Uint8Array(0) };
  const read = await readLimited(c.req.raw.body, limit);
  // As Hono's own bodyLimit middleware does: the request the handler reads is rebuilt on the bytes read here.
  if (read.kind === 'body') c.req.raw = new Request(c.req.raw, { body: read.bytes });
  return read;
}

async function responseOf(res: Response): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, body: new Uint8Array(await res.clone().arrayBuffer()) };
}

const transactions = new TransactionSlot<Context>('honoTransaction', 'honoStackTransaction');

/**
 * The one-commit transaction a handler runs in (middleware built with `transaction: true`): the Kysely
 * `Transaction` of the guard's store that also holds the request's `Idempotency-Key` receipt; business rows
 * written through it commit with the stored response, once. Typed from the guard the middleware was built with
 * (`honoTransaction(c, guard)`: `Transaction<DB>` of a `SqliteStore<DB>`/`PostgresStore<DB>`/`MysqlStore<DB>` guard),
 * or from a type argument (`honoTransaction<Transaction<DB>>(c)`; without either it is `unknown`). The guard is
 * only read for its type.
 * @throws {InvalidOption} the request runs in no one-commit transaction (other mode, uncovered method, or the
 *   handler already returned). The transaction itself, used after that, throws `TransactionEnded`.
 * @example const tx = honoTransaction<Transaction<AppDb>>(c);
 */
export function honoTransaction<S extends Store>(c: Context, guard: IdempotencyGuard<S>): HandlerTransactionOf<S>;
export function honoTransaction<Tx>(c: Context): Tx;
export function honoTransaction(c: Context, _guard?: IdempotencyGuard): unknown {
  return transactions.get(c);
}

/**
 * The application's stack's own transaction object a route handler runs in (middleware built with `transaction:`
 * the transactions of your stack, e.g. `pgTransactions(pool)`, `drizzleTransactions(db)`): the pg `PoolClient`, the
 * Drizzle `tx`, … that also holds the request's `Idempotency-Key` receipt. Business rows written through it commit
 * with the stored response, once; payonce's view of the same transaction (for `outbox.enqueueOnce`, the payments'
 * transitions) is `honoTransaction(c)`. Typed from the opener the middleware was built with
 * (`honoStackTransaction(c, transactions)`; it is only read for its type) or from a type argument.
 * @throws {InvalidOption} the request runs in no transaction of the application's stack (other mode, uncovered
 *   method, or the handler already returned). The object itself, used after that, throws `TransactionEnded`.
 * @example const tx = honoStackTransaction(c, transactions); await tx.insert(orders).values(row);
 */
export function honoStackTransaction<N>(c: Context, transactions: StackTransactions<N>): N;
export function honoStackTransaction<N>(c: Context): N;
export function honoStackTransaction(c: Context, _transactions?: StackTransactions<unknown>): unknown {
  return transactions.getStack(c);
}

/** Makes `response` the answer of `c` in place of anything a handler set (a replay, a problem). */
function answer(c: Context, { status, headers, body }: HttpResponse): void {
  c.res = undefined;
  c.res = new Response(new Uint8Array(body), { status, headers });
}

/** The origin-form target (path and query, as sent) of a request URL. */
function targetOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * Hono 4 middleware for the `Idempotency-Key` header, per route or with `app.use` (the route is the last matched
 * pattern, `routePath(c, -1)`). It reads the body itself, up to `maxBodyBytes` (a larger one is answered 413
 * problem+json `REQUEST_BODY_TOO_LARGE`, before any claim), and rebuilds the request on those bytes, so the handler
 * can still call `c.req.json()`; a handler that throws gets `app.onError`'s response, and its key is released (a
 * one-commit transaction rolls back) whatever status `onError` chooses. With
 * `transaction: true` the handler runs inside the one-commit transaction (`honoTransaction(c)`); with
 * `transaction:` your stack's transactions, inside one of your stack (`honoStackTransaction(c)`).
 * @throws {InvalidOption} at construction for a bad policy.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example app.post('/v1/payments', honoIdempotencyKey({ guard, principal: (c) => c.get('accountId') }), pay);
 */
export function honoIdempotencyKey(options: HonoIdempotencyOptions): MiddlewareHandler {
  const { principal, maxBodyBytes = 1_048_576 } = options;
  const core = coreOf(options);
  return async function idempotencyKey(c, next) {
    if (!core.covers(c.req.method)) return next();
    const read = await readBody(c, maxBodyBytes);
    if (read.kind === 'too-large') return answer(c, bodyTooLarge(maxBodyBytes));
    if (read.kind === 'aborted') return answer(c, { status: 400, headers: {}, body: new Uint8Array(0) }); // client gone
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
      body: read.bytes,
      // Aborted by @hono/node-server (and other runtimes) when the client disconnects.
      signal: c.req.raw.signal,
    };
    const result = await core.handle(exchange, async (tx, stack) => {
      transactions.set(c, tx, stack);
      try {
        await next();
      } finally {
        transactions.clear(c);
      }
      const answer = await responseOf(c.res);
      // The handler threw and `app.onError` answered: the key is released whatever status it chose.
      return c.error === undefined ? answer : { ...answer, threw: true };
    });
    if (result.kind !== 'executed') answer(c, result.response);
  };
}
