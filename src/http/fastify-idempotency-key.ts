import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpResponse } from './http-exchange.js';
import { coreOf, type IdempotencyCoreSource, type IdempotencyResult } from './idempotency-core.js';

/** Options of `fastifyIdempotencyKey`: the core's options plus how the principal is found. */
export type FastifyIdempotencyOptions = IdempotencyCoreSource & {
  /** The authenticated principal the key is scoped to (e.g. set by an auth hook); a non-empty string. */
  principal: (request: FastifyRequest) => string | Promise<string>;
};

interface InFlight {
  readonly respond: (response: HttpResponse) => void;
  readonly result: Promise<IdempotencyResult>;
}

const RAW = Symbol('payonce.rawBody');
const IN_FLIGHT = Symbol('payonce.idempotency');
type Tracked = FastifyRequest & { [RAW]?: Buffer[] | Buffer; [IN_FLIGHT]?: InFlight };

/** The exact body bytes a request arrived with, as seen by `fastifyIdempotencyKey` (empty if it had no body). */
export function fastifyRawBody(request: FastifyRequest): Buffer {
  const raw = (request as Tracked)[RAW];
  return raw === undefined ? Buffer.alloc(0) : Buffer.isBuffer(raw) ? raw : Buffer.concat(raw);
}

/**
 * Forwards `payload` into a new readable stream for fastify's parsers while keeping every raw chunk in `chunks`:
 * one plain Readable and three listeners instead of a PassThrough piped from the payload (a Duplex, a pipe and its
 * cleanup), with the same bytes and backpressure (the payload pauses while fastify has not read what was forwarded).
 */
function teeInto(payload: NodeJS.ReadableStream, chunks: Buffer[]): Readable {
  const source = payload as Readable;
  const forwarded = new Readable({
    read() {
      source.resume();
    },
  });
  source.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (!forwarded.push(chunk)) source.pause();
  });
  source.once('end', () => forwarded.push(null));
  source.on('error', (error) => forwarded.destroy(error));
  return forwarded;
}

async function bytesOf(payload: unknown): Promise<Buffer> {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string' || payload instanceof Uint8Array) return Buffer.from(payload);
  if (payload instanceof Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of payload) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }
  return Buffer.from(String(payload));
}

function headersOf(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
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
 * a handler reach fastify's error handler and become a 5xx reply, which releases the key.
 * @throws {InvalidOption} at construction for a bad policy.
 * @see `createIdempotencyCore`; draft-ietf-httpapi-idempotency-key-header-07; Stripe "Idempotent requests".
 * @example await app.register(fastifyIdempotencyKey({ guard, principal: (req) => req.headers['x-account'] as string }));
 */
export function fastifyIdempotencyKey(options: FastifyIdempotencyOptions): FastifyPluginAsync {
  const { principal } = options;
  const core = coreOf(options);
  const plugin: FastifyPluginAsync = async function idempotencyKey(fastify) {
    fastify.addHook('preParsing', async (request: Tracked, _reply, payload) => {
      if (!core.covers(request.method)) return payload;
      const chunks: Buffer[] = [];
      request[RAW] = chunks;
      return teeInto(payload, chunks);
    });

    fastify.addHook('preHandler', async (request: Tracked, reply) => {
      const route = request.routeOptions.url;
      if (!core.covers(request.method) || route === undefined) return;
      const owner = principal(request);
      // The body is complete here (fastify parsed it): join its chunks once, for the fingerprint and the handler.
      const body = fastifyRawBody(request);
      request[RAW] = body;
      const exchange = {
        method: request.method,
        route,
        target: request.url,
        principal: typeof owner === 'string' ? owner : await owner,
        headers: request.headers,
        body,
      };
      let respond: (response: HttpResponse) => void = () => {};
      const produced = new Promise<HttpResponse>((resolve) => {
        respond = resolve;
      });
      let started: () => void = () => {};
      const running = new Promise<null>((resolve) => {
        started = () => resolve(null);
      });
      const result = core.handle(exchange, () => {
        started();
        return produced;
      });
      const first = await Promise.race([running, result]);
      if (first === null) {
        result.catch(() => {}); // awaited in onSend; never left unhandled
        request[IN_FLIGHT] = { respond, result };
        return;
      }
      return reply.send(replace(reply, first.response, false));
    });

    fastify.addHook('onSend', async (request: Tracked, reply, payload) => {
      const inFlight = request[IN_FLIGHT];
      if (!inFlight) return payload;
      request[IN_FLIGHT] = undefined;
      const body = await bytesOf(payload);
      inFlight.respond({ status: reply.statusCode, headers: headersOf(reply), body });
      const result = await inFlight.result;
      return result.kind === 'executed' ? body : replace(reply, result.response, true);
    });
  };
  // Not encapsulated (as fastify-plugin does): the hooks apply to the routes of the scope that registers it.
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}
