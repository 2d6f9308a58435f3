import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Instrumentation scope of the service's own spans and metrics. */
export const SERVICE_SCOPE = '@payonce/service';

interface ActiveRequest {
  readonly span: Span;
  readonly context: Context;
  readonly startedAt: number;
}

/**
 * The route template fastify matched (`/orders/:id/checkout`), or `undefined` when none did (a 404): the
 * `http.route` of the OTel HTTP conventions, which names the span together with the method.
 */
function routeOf(request: FastifyRequest): string | undefined {
  const url = request.routeOptions.url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

/** The attributes of a server span known when the request arrives (OTel HTTP semantic conventions, stable). */
function requestAttributes(request: FastifyRequest, route: string | undefined): Attributes {
  const path = request.url.split('?')[0] ?? request.url;
  const attributes: Attributes = {
    'http.request.method': request.method,
    'url.path': path,
    'url.scheme': request.protocol,
    'server.address': request.hostname,
    'network.protocol.version': request.raw.httpVersion,
  };
  if (route !== undefined) attributes['http.route'] = route;
  const port = request.port;
  if (typeof port === 'number' && Number.isInteger(port)) attributes['server.port'] = port;
  const userAgent = request.headers['user-agent'];
  if (typeof userAgent === 'string') attributes['user_agent.original'] = userAgent;
  if (request.ip) attributes['client.address'] = request.ip;
  return attributes;
}

/** Ends the span of `request` with its answer's status (5xx: span status ERROR and `error.type`). */
function endSpan(active: ActiveRequest, status: number, duration: Histogram, attributes: Attributes): void {
  const { span } = active;
  span.setAttribute('http.response.status_code', status);
  const metricAttributes: Attributes = { ...attributes, 'http.response.status_code': status };
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
    metricAttributes['error.type'] = String(status);
  }
  span.end();
  duration.record((performance.now() - active.startedAt) / 1_000, metricAttributes);
}

/**
 * Adds the service's HTTP server spans to `app`, per the OpenTelemetry HTTP semantic conventions: one span of
 * kind SERVER per request, named `METHOD route` (`POST /orders/:id/checkout`; `METHOD` alone when no route
 * matched), child of the W3C `traceparent`/`tracestate` of the request when it carries one, with
 * `http.request.method`, `url.path`, `url.scheme`, `http.route`, `server.address`, `server.port`,
 * `network.protocol.version`, `user_agent.original`, `client.address`, and at the end
 * `http.response.status_code` (5xx: status ERROR and `error.type`). The handler runs with the span active, so the
 * library's spans nest under it. Also records the `http.server.request.duration` histogram (seconds) with the
 * method, route and status. Register it before any route or hook so that every answer, a 503 of the readiness
 * gate included, is traced. Uses the global providers of `@opentelemetry/api` (`startOtelSdk`).
 * @see https://opentelemetry.io/docs/specs/semconv/http/http-spans/ and …/http-metrics/.
 */
export function registerOtelHttpSpans(app: FastifyInstance): void {
  const tracer = trace.getTracer(SERVICE_SCOPE);
  const duration = metrics.getMeter(SERVICE_SCOPE).createHistogram('http.server.request.duration', {
    unit: 's',
    description: 'Duration of HTTP server requests.',
  });
  const active = new WeakMap<FastifyRequest, ActiveRequest>();
  const metricAttributesOf = (request: FastifyRequest): Attributes => {
    const route = routeOf(request);
    return {
      'http.request.method': request.method,
      'url.scheme': request.protocol,
      ...(route === undefined ? {} : { 'http.route': route }),
    };
  };
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const route = routeOf(request);
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: requestAttributes(request, route) },
      parent,
    );
    const spanContext = trace.setSpan(parent, span);
    active.set(request, { span, context: spanContext, startedAt: performance.now() });
    context.with(spanContext, done);
  });
  // The body is read on the socket's events, outside the context above: the handler is entered again inside it.
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const current = active.get(request);
    if (current === undefined) return done();
    context.with(current.context, done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const current = active.get(request);
    if (current === undefined) return;
    active.delete(request);
    endSpan(current, reply.statusCode, duration, metricAttributesOf(request));
  });
  app.addHook('onRequestAbort', async (request) => {
    const current = active.get(request);
    if (current === undefined) return;
    active.delete(request);
    current.span.setAttribute('error.type', 'aborted');
    current.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection' });
    current.span.end();
  });
}

/**
 * The trace id (32 lowercase hex digits) of the span active in the current context, or `null` when there is none
 * or it is not sampled (no SDK registered, or tracing off): what `recordOrderTrace` stores with an order.
 */
export function activeTraceId(): string | null {
  const span = trace.getActiveSpan();
  if (span === undefined) return null;
  const spanContext = span.spanContext();
  if (!trace.isSpanContextValid(spanContext) || (spanContext.traceFlags & 1) === 0) return null;
  return spanContext.traceId;
}
