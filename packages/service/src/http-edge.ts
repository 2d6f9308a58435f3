import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { bufferOf } from 'payonce/internal/core/buffer-of.js';
import {
  PayonceError,
  STORE_RETRY_AFTER_MS,
  StoreSchemaMissing,
  StoreUnavailable,
} from 'payonce/internal/core/errors.js';
import type { HttpResponse } from 'payonce/internal/http/http-exchange.js';
import { isStoreOutage } from 'payonce/internal/stores/sql/driver-error.js';
import type { Logger } from 'pino';
import { isServiceRouteCode, type ServiceRouteCode, serviceProblem } from './service-problems.js';

/**
 * Largest body, in bytes, the service accepts on its own JSON routes (`/orders*`, `/admin/*`): 64 KiB, far above
 * the documented bodies (a few dozen bytes). More → 413 `REQUEST_BODY_TOO_LARGE`. The webhook endpoints keep the
 * intake's own limit (`maxBodyBytes`, 2 MiB, answered 413 `WEBHOOK_BODY_TOO_LARGE`).
 */
export const SERVICE_BODY_LIMIT_BYTES = 65_536;

/** Sends a neutral `HttpResponse` through a fastify reply (status, headers, exact body bytes). */
export function sendResponse(reply: FastifyReply, response: HttpResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  return reply.send(bufferOf(response.body));
}

/** The generic 500 problem: nothing about the cause reaches the client (it is logged instead). */
export function internalError(): HttpResponse {
  const body = JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500 });
  return { status: 500, headers: { 'content-type': 'application/problem+json' }, body: new TextEncoder().encode(body) };
}

/**
 * 503 `STORE_UNAVAILABLE` problem+json with `Retry-After` (`STORE_RETRY_AFTER_MS` in whole seconds): the answer of
 * every service route while the database is unreachable or not yet migrated at start (issue 34 items 17, 19). The
 * detail is fixed: the driver's message never reaches the client.
 */
export function storeUnavailableProblem(): HttpResponse {
  const retryAfter = String(Math.max(1, Math.ceil(STORE_RETRY_AFTER_MS / 1000)));
  return serviceProblem('STORE_UNAVAILABLE', 'The database is unreachable; retry after the Retry-After delay.', {
    'retry-after': retryAfter,
  });
}

/** Detail per edge code: fixed sentences, never the request's path, headers or body. */
const EDGE_DETAIL: Partial<Record<ServiceRouteCode, string>> = {
  ROUTE_NOT_FOUND: 'No route of this service has this method and path.',
  MALFORMED_REQUEST: 'The request is not well-formed HTTP (request target, header or framing).',
  REQUEST_BODY_TOO_LARGE: `The request body is over ${SERVICE_BODY_LIMIT_BYTES} bytes.`,
  INVALID_REQUEST_BODY: 'The request body or its content type is not the documented JSON.',
  REQUEST_TIMEOUT: 'The request was not received in time.',
  REQUEST_HEADERS_TOO_LARGE: 'The request headers are too large.',
};

function edgeProblem(code: ServiceRouteCode): HttpResponse {
  return serviceProblem(code, EDGE_DETAIL[code] ?? 'The request was refused.');
}

/**
 * The problem+json answer for an error thrown by a route, a hook or a body parser, or `null` for a server error
 * (the caller logs it and answers a generic 500). A `StoreUnavailable` (or `StoreSchemaMissing`: tables dropped
 * after the service migrated at start), or a driver error of a database outage met by the route's own statements
 * (`isStoreOutage`: a connection terminated or lost, a timeout, a deadlock after the retries), is 503 with
 * `Retry-After`
 * (`storeUnavailableProblem`); any other `PayonceError` keeps its code and message; fastify's own 4xx
 * errors are mapped by status: 413 → `REQUEST_BODY_TOO_LARGE`, 404 → `ROUTE_NOT_FOUND`, any other →
 * `INVALID_REQUEST_BODY` (an unparsable body or a content type other than JSON), with a fixed detail (fastify's
 * messages can quote the request).
 */
export function problemOf(error: unknown): HttpResponse | null {
  if (error instanceof StoreUnavailable || error instanceof StoreSchemaMissing) return storeUnavailableProblem();
  // The database failing under a route's own statements (a connection terminated mid-transaction, a deadlock after
  // the retries): the store is down for now, not the request wrong.
  if (isStoreOutage(error)) return storeUnavailableProblem();
  if (error instanceof PayonceError && isServiceRouteCode(error.code)) return serviceProblem(error.code, error.message);
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return edgeProblem('REQUEST_BODY_TOO_LARGE');
  if (status === 404) return edgeProblem('ROUTE_NOT_FOUND');
  return edgeProblem('INVALID_REQUEST_BODY');
}

/** A raw HTTP/1.1 problem answer for a socket whose request Node's parser refused (no fastify reply exists). */
function rawProblem(code: ServiceRouteCode): string {
  const { status, body } = edgeProblem(code);
  const text = Buffer.from(body).toString('utf8');
  return (
    `HTTP/1.1 ${status} ${TITLE_LINE[status] ?? 'Bad Request'}\r\nContent-Type: application/problem+json\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
  );
}

const TITLE_LINE: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Fastify server options of the reference service's HTTP edge, so no answer is fastify's or Node's own JSON:
 * - `frameworkErrors`: a bad percent-escape in the path (`FST_ERR_BAD_URL`) → 400 `MALFORMED_REQUEST`; a path
 *   parameter over fastify's `maxParamLength` (100) → 404 `ORDER_NOT_FOUND` under `/orders/` (no order has such
 *   an id), else 404 `ROUTE_NOT_FOUND`;
 * - `clientErrorHandler`: a request Node's parser refuses (bare CR or invalid character in a header,
 *   `Content-Length` with `Transfer-Encoding`, …) → 400 `MALFORMED_REQUEST`; a request timeout → 408
 *   `REQUEST_TIMEOUT`; oversized headers → 431 `REQUEST_HEADERS_TOO_LARGE`; each with `Connection: close`, then the
 *   socket is destroyed (as Node does by default). A reset connection gets nothing.
 * @see RFC 9457; RFC 9112 §6.3 (Content-Length with Transfer-Encoding); Node `http.Server` 'clientError'.
 */
export function edgeServerOptions(
  logger: Logger,
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    frameworkErrors(error, request, reply) {
      const code: ServiceRouteCode =
        error.code === 'FST_ERR_BAD_URL'
          ? 'MALFORMED_REQUEST'
          : request.url.startsWith('/orders/')
            ? 'ORDER_NOT_FOUND'
            : 'ROUTE_NOT_FOUND';
      if (code === 'ORDER_NOT_FOUND') return sendResponse(reply, serviceProblem(code, 'No order has this id.'));
      return sendResponse(reply, edgeProblem(code));
    },
    clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const code: ServiceRouteCode =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'REQUEST_TIMEOUT'
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? 'REQUEST_HEADERS_TOO_LARGE'
            : 'MALFORMED_REQUEST';
      logger.debug({ code: error.code }, 'malformed HTTP request refused');
      if (socket.writable) socket.end(rawProblem(code));
      else socket.destroy();
    },
  };
}

/**
 * The answer of a service route for an error it threw: its problem+json (`problemOf`, a `StoreUnavailable` as 503
 * `STORE_UNAVAILABLE` with `Retry-After`); for any other error (a driver error of a read outside the guards, e.g.
 * `GET /orders/:id`) the database is probed: unreachable → 503 `STORE_UNAVAILABLE` with `Retry-After` (logged as a
 * warning), else the generic 500 (the error logged). @see issue 34 item 17; docs/service.md "Known limits".
 */
export async function failureAnswer(
  error: unknown,
  reachable: () => Promise<boolean>,
  logger: Logger,
  where: { readonly url: string; readonly what: string },
): Promise<HttpResponse> {
  const problem = problemOf(error);
  if (problem) return problem;
  if (!(await reachable())) {
    logger.warn({ err: error, url: where.url }, `${where.what}: the database is unreachable`);
    return storeUnavailableProblem();
  }
  logger.error({ err: error, url: where.url }, where.what);
  return internalError();
}

/**
 * Installs the root not-found handler (404 `ROUTE_NOT_FOUND` problem+json for every unknown method and path,
 * e.g. `POST /webhooks/paypal`, and for `reply.callNotFound()`) and the root error handler (`failureAnswer` with
 * `reachable`, by default a database that always answers) on the service's fastify app. Scopes with their own
 * error handler keep it.
 */
export function installProblemHandlers(
  app: FastifyInstance,
  logger: Logger,
  reachable: () => Promise<boolean> = async () => true,
): void {
  app.setNotFoundHandler((_request: FastifyRequest, reply: FastifyReply) =>
    sendResponse(reply, edgeProblem('ROUTE_NOT_FOUND')),
  );
  app.setErrorHandler(async (error, request, reply) =>
    sendResponse(reply, await failureAnswer(error, reachable, logger, { url: request.url, what: 'request failed' })),
  );
}
