import type { OutgoingHttpHeaders } from 'node:http';
import {
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  mixin,
  type NestInterceptor,
  type Type,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { bufferOf } from '../core/buffer-of.js';
import { InvalidOption, PayonceError } from '../core/errors.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import { clientGoneSignal, mayWait } from '../http/client-gone.js';
import type { HttpResponse } from '../http/http-exchange.js';
import { coreOf, type IdempotencyCore, type IdempotencyCoreOptions } from '../http/idempotency-core.js';
import { resolveIdempotencyKeyPolicy } from '../http/idempotency-key-policy.js';
import { problemResponse } from '../http/problem-response.js';
import { isProblemCode } from '../http/problem-status.js';
import { TransactionSlot } from '../http/transaction-slot.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type NestHttpRequest, rawBodyOf, routePatternOf, serverResponseOf, targetOf } from './nest-http.js';
import type { PayonceModuleOptions } from './payonce-module-options.js';
import { PAYONCE_GUARD, PAYONCE_OPTIONS } from './payonce-tokens.js';

/** Options of `IdempotencyKeyInterceptor`: the Idempotency-Key policy (the guard is the module's) and the principal. */
export type NestIdempotencyOptions = Omit<IdempotencyCoreOptions, 'guard' | 'transaction'> & {
  /**
   * The one-commit mode: `true` (a transaction of the guard's SQL store, `nestTransaction(req)`), your stack's
   * transactions (`nestStackTransaction(req)`), or `'stack'`: the `stackTransactions` of `PayonceModule`'s options
   * (made in `forRootAsync`'s factory, where your ORM client is injected). See `IdempotencyCoreOptions.transaction`.
   * @default false
   */
  readonly transaction?: IdempotencyCoreOptions['transaction'] | 'stack';
  /** The authenticated principal the key is scoped to (e.g. the account id a guard put on the request). */
  readonly principal: (request: NestHttpRequest) => string | Promise<string>;
};

const transactions = new TransactionSlot<object>('nestTransaction', 'nestStackTransaction');
const reflector = new Reflector();

/**
 * The one-commit transaction a route handler runs in, under an `IdempotencyKeyInterceptor` with `transaction`:
 * the transaction that also holds the request's Idempotency-Key receipt, as the core hands it to the route. Pass
 * the request object the handler got (`@Req()`).
 * @throws {InvalidOption} the request runs in no one-commit transaction (interceptor without `transaction`,
 *   uncovered method, or the handler already returned).
 * @example const tx = nestTransaction<Transaction<AppDb>>(request);
 */
export function nestTransaction<Tx>(request: object): Tx {
  return transactions.get<Tx>(request);
}

/**
 * The application's stack's own transaction object a route handler runs in, under an `IdempotencyKeyInterceptor`
 * whose `transaction` is your stack's transactions (`prismaTransactions(prisma)`, `drizzleTransactions(db)`, …): the
 * Prisma transaction client, the Drizzle `tx`, … that also holds the request's Idempotency-Key receipt; payonce's
 * view of the same transaction (for `outbox.enqueueOnce`) is `nestTransaction(request)`. Typed from the opener (only
 * read for its type) or from a type argument.
 * @throws {InvalidOption} the request runs in no transaction of the application's stack.
 * @example const tx = nestStackTransaction(request, transactions); await tx.order.create({ data });
 */
export function nestStackTransaction<N>(request: object, transactions: StackTransactions<N>): N;
export function nestStackTransaction<N>(request: object): N;
export function nestStackTransaction(request: object, _transactions?: StackTransactions<unknown>): unknown {
  return transactions.getStack(request);
}

/** The handler's value as bytes and a content type: JSON for objects, UTF-8 text for strings, bytes as they are. */
function serialised(value: unknown): { body: Uint8Array; type: string | undefined } {
  if (value === undefined || value === null) return { body: new Uint8Array(0), type: undefined };
  if (value instanceof Uint8Array) return { body: value, type: 'application/octet-stream' };
  if (typeof value === 'string') return { body: Buffer.from(value, 'utf8'), type: 'text/plain; charset=utf-8' };
  const isStream =
    typeof (value as { pipe?: unknown }).pipe === 'function' ||
    typeof (value as { getStream?: unknown }).getStream === 'function' ||
    Symbol.asyncIterator in (value as object);
  if (isStream) {
    throw new InvalidOption(
      'route',
      'a route under the Idempotency-Key interceptor returns JSON, text or bytes, not a stream',
    );
  }
  return { body: Buffer.from(JSON.stringify(value), 'utf8'), type: 'application/json; charset=utf-8' };
}

/** The headers the handler (or `@Header()`) set on the platform response, as strings. */
function headersSet(response: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const set = (response as { getHeaders?: () => OutgoingHttpHeaders }).getHeaders?.() ?? {};
  for (const [name, value] of Object.entries(set)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/**
 * The status the response carries once the handler returned: Nest sets the route's status (`@HttpCode`, else 201
 * for POST and 200 otherwise) on the platform response before interceptors run, and a handler may set another
 * (`@Res({ passthrough: true }) res.status(202)`). `fallback` when the response holds no valid status.
 */
function statusOf(response: unknown, fallback: number): number {
  const status: unknown =
    typeof response === 'object' && response !== null ? serverResponseOf(response).statusCode : undefined;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : fallback;
}

/** What the route produced: its value with the status the response carries (see `statusOf`). */
function producedOf(value: unknown, status: number, response: unknown): HttpResponse {
  const { body, type } = serialised(value);
  const headers = headersSet(response);
  if (type !== undefined && headers['content-type'] === undefined) headers['content-type'] = type;
  return { status, headers, body };
}

/**
 * A handler's `HttpException` below 500 as the response Nest's own exception filter would send (its object
 * response, else `{ statusCode, message }`), so a 4xx is stored and replayed like any other answer.
 */
function exceptionResponse(error: HttpException): HttpResponse {
  const answer = error.getResponse();
  const status = error.getStatus();
  const body = typeof answer === 'object' && answer !== null ? answer : { statusCode: status, message: answer };
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** Statuses whose response has no body (a web `Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The answer as a web `Response`, which Nest (12.4+) sends with exactly this status, these headers and bytes. */
function webResponse({ status, headers, body }: HttpResponse): Response {
  const sent = NO_BODY.has(status) || body.byteLength === 0 ? null : bufferOf(body);
  const all = sent === null ? headers : { ...headers, 'content-length': String(body.byteLength) };
  return new Response(sent, { status, headers: all });
}

/** The core's `transaction` option: `'stack'` is the module's `stackTransactions`. @throws {InvalidOption} none set. */
function transactionOf(
  options: NestIdempotencyOptions,
  module: PayonceModuleOptions,
): IdempotencyCoreOptions['transaction'] {
  if (options.transaction !== 'stack') return options.transaction;
  if (module.stackTransactions === undefined) {
    throw new InvalidOption('transaction', "'stack' uses the stackTransactions option of PayonceModule; set it");
  }
  return module.stackTransactions;
}

/** One covered request: builds the exchange, lets the core decide, runs the route at most once. */
async function decide(
  core: IdempotencyCore,
  options: NestIdempotencyOptions,
  context: ExecutionContext,
  next: CallHandler,
): Promise<Response> {
  const http = context.switchToHttp();
  const request = http.getRequest<NestHttpRequest>();
  const response = http.getResponse<unknown>();
  const routeStatus = (reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
    (request.method === 'POST' ? 201 : 200)) as number;
  try {
    const exchange = {
      method: request.method,
      route: routePatternOf(request),
      target: targetOf(request),
      principal: await options.principal(request),
      headers: request.headers,
      body: rawBodyOf(request),
      signal: mayWait(core.policy.waitForInFlightMs, core.guard.options.waitForInFlightMs)
        ? clientGoneSignal(serverResponseOf(response))
        : undefined,
    };
    const result = await core.handle(exchange, async (tx, stack) => {
      transactions.set(request, tx, stack);
      try {
        const value = await lastValueFrom(next.handle(), { defaultValue: undefined });
        return producedOf(value, statusOf(response, routeStatus), response);
      } catch (error) {
        if (error instanceof HttpException && error.getStatus() < 500) return exceptionResponse(error);
        throw error;
      } finally {
        transactions.clear(request);
      }
    });
    return webResponse(result.response);
  } catch (error) {
    // payonce's own errors (a principal that resolves to nothing, no raw body) are answered as problem+json like
    // every other answer of the layer; the application's errors go to Nest's exception filters.
    if (error instanceof PayonceError && isProblemCode(error.code))
      return webResponse(problemResponse(error.code, error.message));
    throw error;
  }
}

/**
 * A NestJS interceptor class for the `Idempotency-Key` header (`@UseInterceptors(IdempotencyKeyInterceptor({
 * principal }))` on a controller or route), on the guard of `PayonceModule` (`PAYONCE_GUARD`). Built on the same
 * core as the express/fastify/hono adapters (`createIdempotencyCore`): same key and body → the stored response
 * replayed (status, stored headers, bytes, `Idempotent-Replayed: true`); same key, other body → 422
 * `PAYLOAD_MISMATCH`; still running → 409 `REQUEST_IN_PROGRESS` + `Retry-After`; missing/malformed key → 400; all
 * problems as RFC 9457 `application/problem+json`. The route's value is sent as JSON (text for a string, bytes as
 * they are) with the status the response carries when the handler returns — its `@HttpCode` (else 201 for POST,
 * 200 otherwise), or the one the handler set (`@Res({ passthrough: true }) res.status(…)`) — and stored byte for
 * byte, so a replay answers that status; an
 * `HttpException` below 500 thrown by the handler (or a pipe) is stored as Nest would answer it; a 5xx or any other
 * throw releases the key and reaches Nest's exception filters. The fingerprint is of the raw body: create the app
 * with `rawBody: true`. With `transaction: true` the route runs in the one-commit transaction (`nestTransaction(req)`);
 * with your stack's transactions (`prismaTransactions(prisma)`, …, or `'stack'` for the module's `stackTransactions`)
 * in one of your stack (`nestStackTransaction(req)`).
 * Requires @nestjs/core 12.4 or later (it answers with a web `Response`), on express or fastify.
 * @throws {InvalidOption} `principal` is not a function, or a bad policy (`resolveIdempotencyKeyPolicy`), when the
 *   interceptor is made; per request, a missing raw body or an unresolvable principal is answered 500
 *   problem+json `INVALID_OPTION`.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; NestJS docs "Interceptors".
 * @example @UseInterceptors(IdempotencyKeyInterceptor({ principal: (req) => String(req.headers['x-account']) }))
 */
export function IdempotencyKeyInterceptor(options: NestIdempotencyOptions): Type<NestInterceptor> {
  if (typeof options?.principal !== 'function')
    throw new InvalidOption('principal', 'must be a function of the request');
  const { principal: _principal, transaction: _transaction, ...policy } = options;
  resolveIdempotencyKeyPolicy(policy); // a bad policy is refused here, not when the application boots
  class PayonceIdempotencyKey implements NestInterceptor {
    private readonly core: IdempotencyCore;

    constructor(guard: IdempotencyGuard, module: PayonceModuleOptions) {
      this.core = coreOf({ ...options, guard, transaction: transactionOf(options, module) });
    }

    intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
      if (context.getType() !== 'http') return next.handle();
      if (!this.core.covers(context.switchToHttp().getRequest<NestHttpRequest>().method)) return next.handle();
      return from(decide(this.core, options, context, next));
    }
  }
  Inject(PAYONCE_GUARD)(PayonceIdempotencyKey, undefined, 0);
  Inject(PAYONCE_OPTIONS)(PayonceIdempotencyKey, undefined, 1);
  Injectable()(PayonceIdempotencyKey);
  return mixin(PayonceIdempotencyKey);
}
