import { Readable } from 'node:stream';
import { errorCodes, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { clientGoneSignal, mayWait } from './client-gone.js';
import type { HttpResponse } from './http-exchange.js';
import { coreOf, type IdempotencyCoreSource, type IdempotencyResult } from './idempotency-core.js';
import { TransactionSlot } from './transaction-slot.js';

/** Options of `fastifyIdempotencyKey`: the core's options plus how the principal is found. */
export type FastifyIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. set by an auth hook); a non-empty string. */
  principal: (request: FastifyRequest) => string | Promise<string>;
};

/**
 * One covered request between its preHandler and its onSend: `respond` hands the handler's serialised reply to the
 * core (set when the core calls the route), and `finish` is onSend's continuation, called once the core decided.
 */
interface InFlight {
  respond: (response: HttpResponse) => void;
  decided: IdempotencyResult | undefined;
  failure: unknown;
  failed: boolean;
  finish: ((result: IdempotencyResult | undefined, failure: unknown) => void) | undefined;
}

const RAW = Symbol('payonce.rawBody');
const IN_FLIGHT = Symbol('payonce.idempotency');
type Tracked = FastifyRequest & { [RAW]?: Buffer[] | Buffer; [IN_FLIGHT]?: InFlight };
type OnSendDone = (error: Error | null, payload?: unknown) => void;

const transactions = new TransactionSlot<FastifyRequest>('fastifyTransaction');

/**
 * The one-commit transaction a route handler runs in (plugin registered with `transaction: true`): the Kysely
 * `Transaction` of the guard's store that also holds the request's `Idempotency-Key` receipt. Write the business
 * rows through it; they commit with the stored response, once. `Tx` is the store's transaction type
 * (`Transaction<DB>` of `SqliteStore<DB>` / `PostgresStore<DB>` / `MysqlStore<DB>`).
 * @throws {InvalidOption} the request runs in no one-commit transaction (other mode, uncovered method, or the
 *   reply was already sent).
 * @example const tx = fastifyTransaction<Transaction<AppDb>>(request); await tx.insertInto('orders').values(row).execute();
 */
export function fastifyTransaction<Tx>(request: FastifyRequest): Tx {
  return transactions.get<Tx>(request);
}

/** The exact body bytes a request arrived with, as seen by `fastifyIdempotencyKey` (empty if it had no body). */
export function fastifyRawBody(request: FastifyRequest): Buffer {
  const raw = (request as Tracked)[RAW];
  return raw === undefined ? Buffer.alloc(0) : Buffer.isBuffer(raw) ? raw : Buffer.concat(raw);
}

/**
 * Keeps every chunk `payload` delivers to its consumer in `chunks`, without a stream of our own in between: the
 * listener is prepended with the plain EventEmitter method, which (unlike `on('data')`) does not switch the stream to
 * flowing mode, so fastify's parser (or a custom one) still decides when and how it is read, with its own
 * backpressure and `bodyLimit`. A chunk delivered as a string (a consumer called `setEncoding`) is turned back into
 * bytes with the stream's encoding.
 */
function keepChunks(payload: NodeJS.ReadableStream, chunks: Buffer[]): void {
  const source = payload as Readable;
  source.prependListener('data', (chunk: Buffer | string) => {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, source.readableEncoding ?? 'utf8') : chunk);
  });
}

/** The bytes of a serialised payload that is already in memory (string, bytes, none); undefined for a stream. */
function bytesNow(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string' || payload instanceof Uint8Array) return Buffer.from(payload);
  return payload instanceof Readable ? undefined : Buffer.from(String(payload));
}

async function bytesOfStream(payload: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of payload) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A rejection as a hook's error: a falsy one becomes fastify's own FST_ERR_SEND_UNDEFINED_ERR, as for an async hook. */
function asError(failure: unknown): Error {
  return failure ? (failure as Error) : new errorCodes.FST_ERR_SEND_UNDEFINED_ERR();
}

function headersOf(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  const all = reply.getHeaders();
  for (const name in all) {
    const value = all[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

function replace(reply: FastifyReply, { status, headers, body }: HttpResponse, clear: boolean): Buffer {
  if (clear) for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
  reply.code(status).headers(headers);
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Fastify 5 plugin for the `Idempotency-Key` header, for every route registered after it in the same scope
 * (it is not encapsulated). `preParsing` tees the raw body (available to handlers through `fastifyRawBody(request)`,
 * while fastify's own parsers still parse it); `preHandler` claims the key or replies with a replay or a problem;
 * `onSend` hands the handler's serialised reply to the core, which stores it before it is sent. Errors thrown by
 * a handler reach fastify's error handler and become a 5xx reply, which releases the key. With `transaction: true`
 * the route runs inside the one-commit transaction (`fastifyTransaction(request)`), committed with the receipt.
 * @throws {InvalidOption} at construction for a bad policy.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example await app.register(fastifyIdempotencyKey({ guard, principal: (req) => req.headers['x-account'] as string }));
 */
export function fastifyIdempotencyKey(options: FastifyIdempotencyOptions): FastifyPluginAsync {
  const { principal } = options;
  const core = coreOf(options);
  const waits = mayWait(core.policy.waitForInFlightMs, core.guard.options.waitForInFlightMs);
  type Done = (error?: Error) => void;

  /** Hands the decision to onSend's continuation once both are there (normally onSend comes first). */
  const settle = (state: InFlight): void => {
    const finish = state.finish;
    if (finish === undefined || (state.decided === undefined && !state.failed)) return;
    state.finish = undefined;
    finish(state.decided, state.failure);
  };

  /** Claims the key of a covered request, then lets fastify run the route (`done`) or replies instead. */
  const claim = (request: Tracked, reply: FastifyReply, route: string, owner: string, done: Done): void => {
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
    let state: InFlight | undefined;
    core
      .handle(exchange, (tx) => {
        transactions.set(request, tx);
        const produced = new Promise<HttpResponse>((respond) => {
          state = { respond, decided: undefined, failure: undefined, failed: false, finish: undefined };
        }).finally(() => transactions.clear(request));
        request[IN_FLIGHT] = state;
        done(); // this request owns the key (or is not covered): fastify runs the route, onSend takes its reply
        return produced;
      })
      .then(
        (decided) => {
          if (state === undefined) {
            let answer: Buffer;
            try {
              answer = replace(reply, decided.response, false);
            } catch (error) {
              return done(asError(error));
            }
            reply.send(answer);
          } else {
            state.decided = decided;
            settle(state);
          }
        },
        (failure: unknown) => {
          if (state === undefined) done(asError(failure));
          else {
            state.failure = failure;
            state.failed = true;
            settle(state);
          }
        },
      );
  };

  /** onSend's continuation: the handler's bytes when it executed, else the replay or problem the core chose. */
  const deliver = (state: InFlight, reply: FastifyReply, body: Buffer, done: OnSendDone): void => {
    state.finish = (decided, failure) => {
      if (decided === undefined) return done(asError(failure));
      let payload: Buffer;
      try {
        payload = decided.kind === 'executed' ? body : replace(reply, decided.response, true);
      } catch (error) {
        return done(asError(error));
      }
      done(null, payload);
    };
    state.respond({ status: reply.statusCode, headers: headersOf(reply), body });
    settle(state);
  };

  // Callback-style hooks: no promise per hook and request (fastify awaits a hook's promise when it returns one).
  const plugin: FastifyPluginAsync = async function idempotencyKey(fastify) {
    fastify.addHook('preParsing', (request: Tracked, _reply, payload, done) => {
      if (!core.covers(request.method)) return done(null, payload);
      const chunks: Buffer[] = [];
      request[RAW] = chunks;
      keepChunks(payload, chunks);
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

    fastify.addHook('onSend', (request: Tracked, reply, payload, done) => {
      const state = request[IN_FLIGHT];
      if (state === undefined) return done(null, payload);
      request[IN_FLIGHT] = undefined;
      const body = bytesNow(payload);
      if (body !== undefined) return deliver(state, reply, body, done);
      bytesOfStream(payload as Readable).then(
        (bytes) => deliver(state, reply, bytes, done),
        (failure: unknown) => done(asError(failure)),
      );
    });
  };
  // Not encapsulated (as fastify-plugin does): the hooks apply to the routes of the scope that registers it.
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}
