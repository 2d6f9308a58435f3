import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { InvalidOption } from '../core/errors.js';

/**
 * The part of a request object payonce reads under NestJS, on either platform: an express `Request`
 * (`@nestjs/platform-express`) or a `FastifyRequest` (`@nestjs/platform-fastify`). `rawBody` is set by Nest when the
 * application is created with `rawBody: true` (for the JSON and URL-encoded bodies Nest parses).
 */
export interface NestHttpRequest {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** The request target as received (path and query). */
  readonly url: string;
  /** Request headers, names lower case. */
  readonly headers: IncomingHttpHeaders;
  /** The client's address (the platform's `request.ip`). */
  readonly ip?: string;
  /** The exact body bytes (a `Buffer`), kept by Nest when the app is created with `rawBody: true`. */
  readonly rawBody?: unknown;
}

/** The request fields of both platforms payonce reads besides `NestHttpRequest`'s. */
type PlatformRequest = NestHttpRequest & {
  readonly originalUrl?: string; // express
  readonly baseUrl?: string; // express
  readonly route?: { readonly path?: unknown }; // express, once routed
  readonly routeOptions?: { readonly url?: string }; // fastify
};

/** The response object of either platform: an express `Response` (a `ServerResponse`) or a `FastifyReply` (`raw`). */
type PlatformResponse = ServerResponse & {
  readonly raw?: ServerResponse; // fastify
};

const RAW_BODY_REQUIRED =
  'the request has a body but Nest kept no raw bytes of it: create the application with ' +
  'NestFactory.create(AppModule, { rawBody: true }) (express and fastify), and send a JSON or URL-encoded body';

/**
 * The exact body bytes of `request` as Nest kept them (`rawBody: true`); empty for a request without a body.
 * @throws {InvalidOption} the request declares a body but has no `rawBody` (the app was created without
 *   `rawBody: true`, or Nest does not parse its content type).
 */
export function rawBodyOf(request: NestHttpRequest): Buffer {
  if (Buffer.isBuffer(request.rawBody)) return request.rawBody;
  const length = request.headers['content-length'];
  const declared = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
  if (declared) throw new InvalidOption('rawBody', RAW_BODY_REQUIRED);
  return Buffer.alloc(0);
}

/**
 * The route pattern the platform matched (`/orders/:id`): express's `baseUrl` + `route.path`, fastify's
 * `routeOptions.url`. @throws {InvalidOption} the request was not routed (the interceptor runs outside a route).
 */
export function routePatternOf(request: NestHttpRequest): string {
  const platform = request as PlatformRequest;
  const fastifyRoute = platform.routeOptions?.url;
  if (typeof fastifyRoute === 'string') return fastifyRoute;
  const expressRoute = platform.route?.path;
  if (typeof expressRoute === 'string') return `${platform.baseUrl ?? ''}${expressRoute}`;
  throw new InvalidOption('route', 'the Idempotency-Key interceptor must run on a route of a controller');
}

/** The concrete request target (path and query) as received. */
export const targetOf = (request: NestHttpRequest): string => (request as PlatformRequest).originalUrl ?? request.url;

/** The Node `ServerResponse` under a platform response (express's is one; fastify's reply has it as `raw`). */
export function serverResponseOf(response: unknown): ServerResponse {
  const platform = response as PlatformResponse;
  return platform.raw ?? platform;
}
