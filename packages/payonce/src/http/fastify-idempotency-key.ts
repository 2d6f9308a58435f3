import { Readable } from 'node:stream';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import { bufferOf } from '../core/buffer-of.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../core/store.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { bodyTooLarge } from './body-too-large.js';
import { clientGoneSignal, mayWait } from './client-gone.js';
import {
  asError,
  IN_FLIGHT,
  InFlight,
  type InFlightRequest,
  type PreHandlerDone,
  transactions,
} from './fastify-in-flight.js';
import { coreOf, type IdempotencyCoreSource } from './idempotency-core.js';

/** Options of `fastifyIdempotencyKey`: the core's options plus how the principal is found. */
export type FastifyIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. set by an auth hook); a non-empty string. */
  principal: (request: FastifyRequest) => string | Promise<string>;
};

const RAW = Symbol('payonce.rawBody');
type Tracked = InFlightRequest & { [RAW]?: Buffer[] | Buffer };

/**
 * The one-commit transaction a route handler runs in (plugin registered with `transaction: true`): the Kysely
 * `Transaction` of the guard's store that also holds the request's `Idempotency-Key` receipt. Write the business
 * rows through it; they commit with the stored response, once. Typed from the guard the plugin was built with
 * (`fastifyTransaction(request, guard)`: `Transaction<DB>` of a `SqliteStore<DB>` / `PostgresStore<DB>` /
 * `MysqlStore<DB>` guard), or from a type argument (`fastifyTransaction<Transaction<DB>>(request)`; without either
 * it is `unknown`). The guard is only read for its type.
 * @throws {InvalidOption} the request runs in no one-commit transaction (other mode, uncovered method, or the
 *   handler already returned). The transaction itself, used after that, throws `TransactionEnded`.
 * @example const tx = fastifyTransaction<Transaction<AppDb>>(request); await tx.insertInto('orders').values(row).execute();
 */
export function fastifyTransaction<S extends Store>(
  request: FastifyRequest,
  guard: IdempotencyGuard<S>,
): HandlerTransactionOf<S>;
export function fastifyTransaction<Tx>(request: FastifyRequest): Tx;
export function fastifyTransaction(request: FastifyRequest, _guard?: IdempotencyGuard): unknown {
  return transactions.get(request);
}

/**
 * The application's stack's own transaction object a route handler runs in (middleware built with `transaction:`
 * the transactions of your stack, e.g. `pgTransactions(pool)`, `drizzleTransactions(db)`): the pg `PoolClient`, the
 * Drizzle `tx`, … that also holds the request's `Idempotency-Key` receipt. Business rows written through it commit
 * with the stored response, once; payonce's view of the same transaction (for `outbox.enqueueOnce`, the payments'
 * transitions) is `fastifyTransaction(request)`. Typed from the opener the middleware was built with
 * (`fastifyStackTransaction(request, transactions)`; it is only read for its type) or from a type argument.
 * @throws {InvalidOption} the request runs in no transaction of the application's stack (other mode, uncovered
 *   method, or the handler already returned). The object itself, used after that, throws `TransactionEnded`.
 * @example const tx = fastifyStackTransaction(request, transactions); await tx.insert(orders).values(row);
 */
export function fastifyStackTransaction<N>(request: FastifyRequest, transactions: StackTransactions<N>): N;
export function fastifyStackTransaction<N>(request: FastifyRequest): N;
export function fastifyStackTransaction(request: FastifyRequest, _transactions?: StackTransactions<unknown>): unknown {
  return transactions.getStack(request);
}

/** The exact body bytes a request arrived with, as seen by `fastifyIdempotencyKey` (empty if it had no body). */
export function fastifyRawBody(request: FastifyRequest): Buffer {
  const raw = (request as Tracked)[RAW];
  if (raw === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(raw)) return raw;
  // One chunk (most bodies): the socket's chunk is already a Buffer of its own, so it is the body as it is.
  return raw.length === 1 ? raw[0]! : Buffer.concat(raw);
}

/** The chunks kept so far on a request's payload stream (`keepChunk` appends to it). */
const CHUNKS = Symbol('payonce.rawChunks');
type Kept = Readable & { [CHUNKS]?: Buffer[] };

/**
 * The `data` listener of every covered request's payload (one function for all requests, reading its stream as
 * `this`): keeps each chunk the payload delivers to its consumer, in order. It is prepended with the plain
 * EventEmitter method, which (unlike `on('data')`) does not switch the stream to flowing mode, so fastify's parser
 * (or a custom one) still decides when and how it is read, with its own backpressure and `bodyLimit`. A chunk
 * delivered as a string (a consumer called `setEncoding`) is turned back into bytes with the stream's encoding.
 */
function keepChunk(this: Kept, chunk: Buffer | string): void {
  // Flowing with no other 'data' listener: the consumer gave up (e.g. fastify's parser past `bodyLimit`). Stop
  // keeping and pause, so the rest of an oversized body is neither read nor buffered here.
  if (this.readableFlowing === true && this.listenerCount('data') === 1) {
    this.removeListener('data', keepChunk);
    this.pause();
    return;
  }
  this[CHUNKS]!.push(typeof chunk === 'string' ? Buffer.from(chunk, this.readableEncoding ?? 'utf8') : chunk);
}

/** Starts keeping the chunks of `payload` (once per stream, however many instances of the plugin see it). */
function keepChunks(payload: NodeJS.ReadableStream): Buffer[] {
  const source = payload as Kept;
  const kept = source[CHUNKS];
  if (kept !== undefined) return kept;
  const chunks: Buffer[] = [];
  source[CHUNKS] = chunks;
  source.prependListener('data', keepChunk);
  return chunks;
}

/** The bytes of a serialised payload that is already in memory (string, bytes, none); undefined for a stream. */
function bytesNow(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string' || payload instanceof Uint8Array) return Buffer.from(payload);
  return payload instanceof Readable ? undefined : Buffer.from(String(payload));
}

/** True for a payload fastify can send as it is (a string or bytes), so the hook hands it back unchanged. */
const inMemory = (payload: unknown): boolean => typeof payload === 'string' || payload instanceof Uint8Array;

async function bytesOfStream(payload: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of payload) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * Makes `route` answer a covered request whose body is over fastify's `bodyLimit` (`FST_ERR_CTP_BODY_TOO_LARGE`,
 * raised by the body parser before any hook of the plugin could claim) with the adapters' 413 problem+json, as the
 * express and hono adapters do, instead of the application's error handler. Any other error goes to the route's
 * own `errorHandler`, else (rethrown) to the scope's.
 */
function answerTooLarge(route: RouteOptions, covers: (method: string) => boolean): void {
  const own = route.errorHandler;
  route.errorHandler = function idempotencyKeyErrors(error: FastifyError, request, reply) {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && covers(request.method)) {
      const { status, headers, body } = bodyTooLarge(request.routeOptions.bodyLimit); // the route's, else the server's
      return reply.code(status).headers(headers).send(bufferOf(body));
    }
    if (own) return own.call(this, error, request, reply);
    throw error;
  };
}

/**
 * Makes `route`'s handler report to its request's `InFlight` (when the request runs under the plugin) when it
 * returns or throws, so the reply is stored only once the handler is done; other requests call it as they did.
 */
function watchHandler(route: RouteOptions): void {
  const handler = route.handler;
  route.handler = function idempotencyKeyRoute(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const flight = (request as Tracked)[IN_FLIGHT];
    return flight === undefined ? handler.call(this, request, reply) : flight.runHandler(handler, this, reply);
  };
}

/**
 * Fastify 5 plugin for the `Idempotency-Key` header, for every route registered after it in the same scope
 * (it is not encapsulated). `preParsing` keeps the raw body chunks as the parser reads them (handlers get them
 * with `fastifyRawBody(request)`, while fastify's own parsers still parse the body); `preHandler` claims the key or replies with a replay or a problem;
 * `onSend` hands the handler's serialised reply to the core once the handler has returned (a handler that sends and
 * goes on writing is waited for; end it with `return reply`), and the core stores it before it is sent. A handler
 * that throws, before or after sending, has its reply dropped and gets fastify's error handler's reply instead; the
 * key is released (a one-commit transaction rolls back) whatever status that reply has. A covered request whose
 * body is over fastify's `bodyLimit` is answered 413 problem+json `REQUEST_BODY_TOO_LARGE` by the plugin (a
 * route-level error handler it adds to every route registered after it), before any claim. With `transaction: true`
 * the route runs inside the one-commit transaction (`fastifyTransaction(request)`), committed with the receipt; with
 * `transaction:` your stack's transactions, inside one of your stack (`fastifyStackTransaction(request)`).
 * @throws {InvalidOption} at construction for a bad policy.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example await app.register(fastifyIdempotencyKey({ guard, principal: (req) => req.headers['x-account'] as string }));
 */
export function fastifyIdempotencyKey(options: FastifyIdempotencyOptions): FastifyPluginAsync {
  const { principal } = options;
  const core = coreOf(options);
  const waits = mayWait(core.policy.waitForInFlightMs, core.guard.options.waitForInFlightMs);
  const storedHeaders = core.policy.storedHeaders;

  /** Claims the key of a covered request, then lets fastify run the route or replies instead. */
  const claim = (request: Tracked, reply: FastifyReply, route: string, owner: string, done: PreHandlerDone): void => {
    // The body is complete here (fastify parsed it): join its chunks once, for the fingerprint and the handler.
    const body = fastifyRawBody(request);
    request[RAW] = body;
    const exchange = {
      method: request.method,
      route,
      target: request.url,
      principal: owner,
      headers: request.headers,
      body,
      signal: waits ? clientGoneSignal(reply.raw) : undefined,
    };
    const flight = new InFlight(request, reply, done);
    core
      .handle(exchange, (tx, stack) => flight.run(tx, stack))
      .then(
        (result) => flight.decided(result),
        (failure: unknown) => flight.rejected(failure),
      );
  };

  // Callback-style hooks: no promise per hook and request (fastify awaits a hook's promise when it returns one).
  const plugin: FastifyPluginAsync = async function idempotencyKey(fastify) {
    fastify.addHook('onRoute', (route) => {
      answerTooLarge(route, core.covers);
      watchHandler(route);
    });

    fastify.addHook('preParsing', (request: Tracked, _reply, payload, done) => {
      if (!core.covers(request.method)) return done(null, payload);
      request[RAW] = keepChunks(payload);
      done(null, payload);
    });

    fastify.addHook('preHandler', (request: Tracked, reply, done) => {
      const route = request.routeOptions.url;
      if (!core.covers(request.method) || route === undefined) return done();
      const owner = principal(request);
      if (typeof owner === 'string') return claim(request, reply, route, owner, done);
      Promise.resolve(owner).then(
        (resolved) => claim(request, reply, route, resolved, done),
        (failure: unknown) => done(asError(failure)),
      );
    });

    fastify.addHook('onSend', (request: Tracked, _reply, payload, done) => {
      const state = request[IN_FLIGHT];
      if (state === undefined) return done(null, payload);
      const body = bytesNow(payload);
      // A payload in memory is sent as fastify serialised it; a stream was read here, so its bytes are sent.
      if (body !== undefined) return state.deliver(body, inMemory(payload) ? payload : body, storedHeaders, done);
      bytesOfStream(payload as Readable).then(
        (bytes) => state.deliver(bytes, bytes, storedHeaders, done),
        (failure: unknown) => done(asError(failure)),
      );
    });
  };
  // Not encapsulated (as fastify-plugin does): the hooks apply to the routes of the scope that registers it.
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}
