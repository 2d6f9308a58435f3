import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { bufferOf } from '../core/buffer-of.js';
import { InvalidOption, PayonceError } from '../core/errors.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../core/store.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { bodyTooLarge } from './body-too-large.js';
import { clientGoneSignal, mayWait } from './client-gone.js';
import { CapturedResponse } from './express-captured-response.js';
import { unwatchRoute, watchRoute } from './express-route-run.js';
import type { HttpResponse } from './http-exchange.js';
import { coreOf, type IdempotencyCoreSource, type RouteAnswer } from './idempotency-core.js';
import { declaresTooLarge } from './limited-body.js';
import { problemResponse } from './problem-response.js';
import { isProblemCode } from './problem-status.js';
import { TransactionSlot } from './transaction-slot.js';

export { keepRawBody } from './keep-raw-body.js';

/** Options of `expressIdempotencyKey`: the core's options plus how the principal is found and a body limit. */
export type ExpressIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. `req.user.accountId`); a non-empty string. */
  principal: (req: Request) => string | Promise<string>;
  /**
   * Largest body the middleware buffers itself, in bytes; a larger declared or actual body is answered 413
   * problem+json `REQUEST_BODY_TOO_LARGE` by the middleware (before any claim). @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
};

/** A request whose raw body an earlier body parser kept in `rawBody` (`express.json({ verify: keepRawBody })`). */
type RequestWithRawBody = Request & { rawBody?: unknown };

const rawBodies = new WeakMap<Request, Buffer>();
const transactions = new TransactionSlot<Request>('expressTransaction', 'expressStackTransaction');

/**
 * The one-commit transaction a route handler runs in (middleware built with `transaction: true`): the Kysely
 * `Transaction` of the guard's store that also holds the request's `Idempotency-Key` receipt; business rows
 * written through it commit with the stored response, once. Typed from the guard the middleware was built with
 * (`expressTransaction(req, guard)`: `Transaction<DB>` of a `SqliteStore<DB>`/`PostgresStore<DB>`/`MysqlStore<DB>` guard),
 * or from a type argument (`expressTransaction<Transaction<DB>>(req)`; without either it is `unknown`). The guard is
 * only read for its type.
 * @throws {InvalidOption} the request runs in no one-commit transaction (other mode, uncovered method, or the
 *   route's handlers have all returned). The transaction itself, used after that, throws `TransactionEnded`.
 * @example const tx = expressTransaction<Transaction<AppDb>>(req);
 */
export function expressTransaction<S extends Store>(req: Request, guard: IdempotencyGuard<S>): HandlerTransactionOf<S>;
export function expressTransaction<Tx>(req: Request): Tx;
export function expressTransaction(req: Request, _guard?: IdempotencyGuard): unknown {
  return transactions.get(req);
}

/**
 * The application's stack's own transaction object a route handler runs in (middleware built with `transaction:`
 * the transactions of your stack, e.g. `pgTransactions(pool)`, `drizzleTransactions(db)`): the pg `PoolClient`, the
 * Drizzle `tx`, … that also holds the request's `Idempotency-Key` receipt. Business rows written through it commit
 * with the stored response, once; payonce's view of the same transaction (for `outbox.enqueueOnce`, the payments'
 * transitions) is `expressTransaction(req)`. Typed from the opener the middleware was built with
 * (`expressStackTransaction(req, transactions)`; it is only read for its type) or from a type argument.
 * @throws {InvalidOption} the request runs in no transaction of the application's stack (other mode, uncovered
 *   method, or the route's handlers have all returned). The object itself, used after that, throws
 *   `TransactionEnded` (its connection may be back in the pool: nothing it sends would be in the transaction).
 * @example const tx = expressStackTransaction(req, transactions); await tx.insert(orders).values(row);
 */
export function expressStackTransaction<N>(req: Request, transactions: StackTransactions<N>): N;
export function expressStackTransaction<N>(req: Request): N;
export function expressStackTransaction(req: Request, _transactions?: StackTransactions<unknown>): unknown {
  return transactions.getStack(req);
}

/**
 * The exact body bytes of a request that passed `expressIdempotencyKey` (the same bytes that were
 * fingerprinted), for the route handler to parse; empty when it had no body or did not pass the middleware.
 */
export function expressRawBody(req: Request): Buffer {
  return rawBodies.get(req) ?? Buffer.alloc(0);
}

/**
 * Why a request whose body an earlier parser (typically a global `express.json()`) turned into an object is
 * refused: the fingerprint needs the exact bytes, so the message names the fix.
 */
const BODY_PARSED =
  'a body parser (e.g. a global express.json()) turned the body into an object and dropped its bytes, which the ' +
  'Idempotency-Key fingerprint needs: keep them with express.json({ verify: keepRawBody }) (keepRawBody from payonce/http/express), ' +
  'or mount this middleware (or express.raw()) before the parser';

/** The body bytes (`null`: over `limit`, nothing more is buffered). */
async function readBody(req: RequestWithRawBody, limit: number): Promise<Buffer | null> {
  // Bytes an earlier parser already read (its own `limit` applies first) are held to `maxBodyBytes` too.
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody.length > limit ? null : req.rawBody;
  if (Buffer.isBuffer(req.body)) return req.body.length > limit ? null : req.body; // express.raw() ran first
  if (req.body !== undefined) {
    throw new InvalidOption('body', BODY_PARSED);
  }
  if (declaresTooLarge(req.get('content-length'), limit)) {
    req.resume(); // read and dropped, so the 413 can be sent on this connection
    return null;
  }
  return readStream(req, limit);
}

/**
 * Reads the whole request with plain 'data'/'end' listeners (an async iterator per request costs a generator and a
 * promise per chunk). Past `limit` bytes it stops buffering and resolves `null` (the middleware answers 413);
 * a request that closes before its end fails with `ERR_STREAM_PREMATURE_CLOSE`.
 */
function readStream(req: Request, limit: number): Promise<Buffer | null> {
  return new Promise<Buffer | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume(); // the rest is read and dropped, so the 413 can be sent on this connection
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * The route's answer, once the route handlers after `middleware` have all returned and the answer is complete: a
 * handler that answers and goes on (writing through the transaction, or throwing) is waited for. A handler that
 * throws, rejects or passes an error to `next`, before or after answering, has its answer discarded; express's error
 * handling then writes its own, which is the answer, flagged `threw` (the core releases the key and rolls back).
 */
function routeAnswer(req: Request, middleware: RequestHandler, output: CapturedResponse): Promise<RouteAnswer> {
  return new Promise<RouteAnswer>((resolve) => {
    const finish = () => {
      if (!run.idle || output.ended === undefined) return;
      unwatchRoute(req);
      resolve(run.threw ? { ...output.ended, threw: true } : output.ended);
    };
    const run = watchRoute(req, middleware, { failed: () => output.discard(), settled: finish });
    output.onEnd = finish;
  });
}

/** Sends a response the middleware answers itself (a problem, before the route ran). */
function sendResponse(res: Response, { status, headers, body }: HttpResponse): void {
  res.status(status).set(headers).end(bufferOf(body));
}

/**
 * Express 5 route middleware for the `Idempotency-Key` header. Mount it per route, before the handler
 * (`app.post('/v1/payments', idempotency, handler)`), so `req.route` names the route pattern. It buffers the
 * body (unless `express.raw()` already did, or a parser kept `req.rawBody`) for the fingerprint and for the handler
 * (`expressRawBody(req)`), buffers the
 * handler's response and waits until the route's handlers after it have returned (a handler that answers and goes
 * on writing is waited for), lets the core store the answer (and commit, in a one-commit mode), then sends it;
 * replays and problems are sent instead. A handler that throws, rejects or calls `next(error)`, before or after
 * answering, has its answer discarded: the key is released (a one-commit transaction rolls back, whatever status the
 * application's error handler then chooses) and the error handler's answer is sent alone. A body over
 * `maxBodyBytes` (declared or read) is answered 413 problem+json `REQUEST_BODY_TOO_LARGE` here, before any claim. With
 * `transaction: true` the handler runs inside the one-commit transaction (`expressTransaction(req)`); with
 * `transaction:` your stack's transactions, inside one of your stack (`expressStackTransaction(req)`).
 * @throws {InvalidOption} at construction for a bad policy. Per request, the same misconfigurations (mounted
 *   without a route, after a body parser that did not keep the raw bytes, a `principal` that resolves to no
 *   non-empty string) are answered 500 problem+json `INVALID_OPTION`, never express's HTML page; an error thrown
 *   by the application's own `principal` goes to its error handler (`next(error)`).
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example app.post('/v1/payments', expressIdempotencyKey({ guard, principal: (req) => req.get('x-account')! }), pay);
 */
export function expressIdempotencyKey(options: ExpressIdempotencyOptions): RequestHandler {
  const { principal, maxBodyBytes = 1_048_576 } = options;
  const core = coreOf(options);
  const waits = mayWait(core.policy.waitForInFlightMs, core.guard.options.waitForInFlightMs);
  return async function idempotencyKey(req: RequestWithRawBody, res: Response, next: NextFunction) {
    if (!core.covers(req.method)) return next();
    let captured: CapturedResponse | undefined;
    try {
      if (!req.route) throw new InvalidOption('route', 'mount expressIdempotencyKey on a route, not with app.use');
      const body = await readBody(req, maxBodyBytes);
      if (body === null) return sendResponse(res, bodyTooLarge(maxBodyBytes));
      rawBodies.set(req, body);
      const exchange = {
        method: req.method,
        route: `${req.baseUrl}${String(req.route.path)}`,
        target: req.originalUrl,
        principal: await principal(req),
        headers: req.headers,
        body,
        signal: waits ? clientGoneSignal(res) : undefined,
      };
      const output = new CapturedResponse(res);
      captured = output;
      const result = await core.handle(exchange, (tx, stack) => {
        transactions.set(req, tx, stack);
        const answer = routeAnswer(req, idempotencyKey, output);
        next();
        return answer.finally(() => transactions.clear(req));
      });
      if (result.kind === 'executed') output.sendProduced();
      else output.sendInstead(result.response);
    } catch (error) {
      captured?.restore();
      if (res.headersSent) return;
      // payonce's own errors (a principal that resolves to nothing, the middleware mounted wrongly) are answered
      // as problem+json like every other answer here; the application's errors go to its error handler.
      if (error instanceof PayonceError && isProblemCode(error.code)) {
        sendResponse(res, problemResponse(error.code, error.message));
        return;
      }
      next(error);
    }
  };
}
