import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyIdempotencyKey } from 'payonce/http/fastify';
import { PayonceError } from 'payonce/internal/core/errors.js';
import { databaseReachable } from '../database-reachable.js';
import { failureAnswer, SERVICE_BODY_LIMIT_BYTES, sendResponse } from '../http-edge.js';
import type { ServiceContext } from '../service-context.js';
import { ServiceError } from '../service-error.js';
import { serviceProblem } from '../service-problems.js';
import type { AdminActions } from './admin-actions.js';
import { type AdminActor, journalAction } from './admin-audit.js';
import { type AdminSession, type AdminSessions, CSRF_HEADER, operatorName, SESSION_COOKIE } from './admin-auth.js';
import type { PageQuery } from './admin-cursor.js';
import {
  type ActionQuery,
  type AttemptQuery,
  type DeliveryFilter,
  deliveryItem,
  type JobQuery,
  listActions,
  listAttempts,
  listDeliveries,
  listJobs,
  listOrders,
  listReceipts,
  type OrderQuery,
  type ReceiptQuery,
} from './admin-lists.js';
import { readOverview } from './admin-overview.js';
import { adminProblemOf } from './admin-problem.js';
import type { AdminReads } from './admin-reads.js';
import {
  actionResultSchema,
  bodySchemas,
  commonErrors,
  itemSchemas,
  overviewSchema,
  pageSchema,
  problemSchema,
  querySchemas,
  sessionSchema,
  timelineSchema,
} from './admin-schemas.js';
import { orderTimeline } from './admin-timeline.js';
import { failedActionRecord, isJournaled } from './failed-action.js';
import { nonAsciiViolation, type StrictSchema, strictInputViolation } from './strict-input.js';

/** The parts the admin API serves from. */
export interface AdminParts {
  readonly ctx: ServiceContext;
  readonly sessions: AdminSessions;
  readonly reads: AdminReads;
  readonly actions: AdminActions;
}

/** Prefix of every admin API route. */
export const ADMIN_API_PREFIX = '/admin/api';

const actors = new WeakMap<FastifyRequest, AdminActor>();
const sessionsOf = new WeakMap<FastifyRequest, AdminSession>();

/** The actor the auth hook found for this request. */
function actorOf(request: FastifyRequest): AdminActor {
  const actor = actors.get(request);
  if (!actor) throw new ServiceError('ADMIN_TOKEN_INVALID', 'log in or send Authorization: Bearer <token>');
  return actor;
}

/**
 * Authenticates one admin request: `Authorization: Bearer <token>` (compared in constant time; the operator is
 * `X-Operator` or `operator`), else the console's session cookie, whose POSTs must carry the session's
 * `X-CSRF-Token`. Wrong bearer tokens are throttled per client address (`request.ip`).
 * @throws {ServiceError} `ADMIN_TOKEN_INVALID` (401), `ADMIN_CSRF_INVALID` (403), `ADMIN_AUTH_THROTTLED` (429).
 */
export function authenticate(sessions: AdminSessions, request: FastifyRequest): AdminActor {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!sessions.checkTokenFrom(request.ip, given))
      throw new ServiceError('ADMIN_TOKEN_INVALID', 'send Authorization: Bearer <token>');
    const operator = request.headers['x-operator'];
    return { name: operatorName(Array.isArray(operator) ? undefined : operator), via: 'token' };
  }
  const session = sessions.find(request.cookies?.[SESSION_COOKIE]);
  if (!session)
    throw new ServiceError('ADMIN_TOKEN_INVALID', 'log in at /console or send Authorization: Bearer <token>');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const csrf = request.headers[CSRF_HEADER];
    if (!sessions.checkCsrf(session, typeof csrf === 'string' ? csrf : undefined)) {
      throw new ServiceError('ADMIN_CSRF_INVALID', 'send the session CSRF token in X-CSRF-Token');
    }
  }
  sessionsOf.set(request, session);
  return { name: session.operator, via: 'session' };
}

/**
 * Refuses, before any read or write, text the databases cannot take (a NUL on PostgreSQL, non-ASCII on MariaDB's
 * ASCII columns: every admin id, key and filter is printable ASCII) and what fastify's Ajv would silently repair: an unknown query parameter or body field (it would be dropped,
 * so a misspelled filter selects everything) and a body value of another JSON type (`null` would become `false`,
 * turning `dryRun: null` into a real run). @throws {ServiceError} `ADMIN_QUERY_INVALID` (400), before any read or write.
 */
function refuseHiddenInput(request: FastifyRequest): void {
  const schema = request.routeOptions.schema as { querystring?: StrictSchema; body?: StrictSchema } | undefined;
  const violation =
    nonAsciiViolation(request.params, 'params') ??
    nonAsciiViolation(request.query, 'querystring') ??
    nonAsciiViolation(request.body, 'body') ??
    (schema?.querystring ? strictInputViolation(schema.querystring, request.query, 'querystring', false) : null) ??
    (schema?.body && request.body !== undefined ? strictInputViolation(schema.body, request.body, 'body', true) : null);
  if (violation !== null) throw new ServiceError('ADMIN_QUERY_INVALID', violation);
}

/** A JSON answer sent as a string (fastify sends strings as they are: the schemas only document the answers). */
function json(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(JSON.stringify(value));
}

/**
 * The problem answer of an admin scope error: Ajv validation → `ADMIN_QUERY_INVALID`; 429s with Retry-After; a
 * database that does not answer → 503 `STORE_UNAVAILABLE` with Retry-After (`failureAnswer`); else the generic 500.
 */
async function problemFor(ctx: ServiceContext, error: unknown, request: FastifyRequest) {
  const validation = (error as Partial<FastifyError> | null)?.validation;
  if (validation) {
    const where = (error as FastifyError).validationContext ?? 'request';
    const first = validation[0];
    const detail = `${where}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`;
    return serviceProblem('ADMIN_QUERY_INVALID', detail);
  }
  const problem = adminProblemOf(error);
  if (problem) return problem;
  const where = { url: request.routeOptions.url ?? request.url, what: 'admin request failed' };
  return failureAnswer(error, () => databaseReachable(ctx), ctx.logger, where);
}

/** Requests whose failure is journaled (by the action itself or by {@link journalFailure}). */
const failureJournaled = new WeakSet<FastifyRequest>();

/** Journals a failed action (bad input, no key, an unexpected error) that its own code did not journal. */
async function journalFailure(
  parts: AdminParts,
  request: FastifyRequest,
  failure: { error: unknown; status: number; code: string },
) {
  const actor = actors.get(request);
  if (!actor || failureJournaled.has(request)) return;
  failureJournaled.add(request);
  if (isJournaled(failure.error)) return;
  const { error, status, code } = failure;
  const message = error instanceof Error ? error.message : String(error);
  const record = failedActionRecord(request, actor, { code, message }, status);
  if (!record) return;
  try {
    await journalAction(parts.reads.db, parts.reads.redactor, parts.ctx.clock.now(), record);
  } catch (failure) {
    parts.ctx.logger.error({ err: failure, action: record.action }, 'failed admin action could not be journaled');
  }
}

/** The admin scope's error answer (problem+json), after journaling a failed action. */
async function sendProblem(parts: AdminParts, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const problem = await problemFor(parts.ctx, error, request);
  const code =
    error instanceof PayonceError
      ? error.code
      : (error as Partial<FastifyError> | null)?.validation
        ? 'ADMIN_QUERY_INVALID'
        : problem.status >= 500
          ? 'INTERNAL_ERROR'
          : 'INVALID_REQUEST_BODY';
  await journalFailure(parts, request, { error, status: problem.status, code });
  return sendResponse(reply, problem);
}

/** JSON bodies: empty → `{}`, unparsable → `INVALID_REQUEST_BODY`. */
function jsonBodies(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: SERVICE_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const text = String(body).trim();
      if (text === '') return done(null, {});
      try {
        done(null, JSON.parse(text));
      } catch {
        done(new ServiceError('INVALID_REQUEST_BODY', 'the body is not JSON'), undefined);
      }
    },
  );
}

/** Adds the headers no schema can express to the generated OpenAPI document: Idempotency-Key on every POST. */
function withActionHeaders(document: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(document)) as {
    paths?: Record<string, Record<string, { parameters?: unknown[] }>>;
  };
  for (const operations of Object.values(copy.paths ?? {})) {
    const post = operations.post;
    if (!post) continue;
    post.parameters = [
      ...(post.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description: 'a fresh key per action; a retry with the same key and body replays the first answer',
        schema: { type: 'string', maxLength: 255 },
      },
      {
        name: 'X-CSRF-Token',
        in: 'header',
        required: false,
        description: 'required with the console session cookie (from GET /admin/api/session); not with a bearer token',
        schema: { type: 'string' },
      },
    ];
  }
  return copy as Record<string, unknown>;
}

type Q<T> = { Querystring: T };
const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
type P = { Params: { id: string } };

/**
 * Registers the admin API under `/admin/api` (docs/console.md): overview, lists with filters and cursor
 * pagination, one order's timeline, the actions, the session read-out and the OpenAPI document
 * (`/admin/api/openapi.json`, OpenAPI 3.0 by `@fastify/swagger`). Every route answers 401 `ADMIN_TOKEN_INVALID`
 * without the bearer token or a console session; every POST needs an `Idempotency-Key` (payonce's own fastify
 * adapter, scoped to the operator) and, with a session, its CSRF token.
 */
export async function registerAdminApi(app: FastifyInstance, parts: AdminParts): Promise<void> {
  const { ctx, sessions, reads, actions } = parts;
  await app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'payonce admin API',
          version: '1',
          description: 'Operator console API of the payonce reference service (docs/console.md).',
        },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'PAYONCE_ADMIN_TOKEN' },
            sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
          },
        },
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
      },
    });
    jsonBodies(scope);
    scope.setErrorHandler((error, request, reply) => sendProblem(parts, error, request, reply));
    scope.addHook('onRequest', async (request) => {
      actors.set(request, authenticate(sessions, request));
    });
    scope.addHook('preValidation', async (request) => refuseHiddenInput(request));
    // A refusal answered without an error (the Idempotency-Key adapter's 400/409/422) is journaled here.
    scope.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode < 400) return payload;
      const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      const code = /"code":"([A-Z_]{1,60})"/.exec(text)?.[1] ?? `HTTP_${reply.statusCode}`;
      await journalFailure(parts, request, { error: new Error(code), status: reply.statusCode, code });
      return payload;
    });
    await scope.register(
      fastifyIdempotencyKey({
        guard: ctx.httpGuard,
        namespace: 'admin',
        methods: ['POST'],
        requireKey: true,
        principal: (request) => `operator:${actorOf(request).name}`,
      }),
    );

    const get = (
      summary: string,
      tag: string,
      extra: Record<string, unknown> = {},
      ok: object = { type: 'object' },
    ) => ({
      schema: { summary, tags: [tag], response: { 200: ok, ...commonErrors }, ...extra },
    });
    const post = (summary: string, body: Record<string, unknown>, errors: readonly number[], withId = false) => ({
      schema: {
        summary,
        ...(withId ? { params: idParams } : {}),
        tags: ['actions'],
        body,
        response: {
          200: actionResultSchema,
          ...commonErrors,
          ...Object.fromEntries(errors.map((status) => [status, problemSchema])),
        },
      },
    });
    const list = (summary: string, tag: string, query: Record<string, unknown>, item: Record<string, unknown>) => ({
      schema: { summary, tags: [tag], querystring: query, response: { 200: pageSchema(item), ...commonErrors } },
    });
    const p = ADMIN_API_PREFIX;

    scope.get(`${p}/openapi.json`, get('This OpenAPI document', 'meta'), async (_request, reply) =>
      json(reply, 200, withActionHeaders(scope.swagger() as unknown as Record<string, unknown>)),
    );
    scope.get(
      `${p}/session`,
      get('Who is calling, and the CSRF token of a console session', 'meta', {}, sessionSchema),
      async (request, reply) => {
        const actor = actorOf(request);
        const session = sessionsOf.get(request);
        return json(reply, 200, {
          operator: actor.name,
          via: actor.via,
          csrfToken: session?.csrfToken ?? null,
          expiresAtMs: session?.expiresAtMs ?? null,
        });
      },
    );
    scope.get(
      `${p}/overview`,
      get('Counts: receipts, stuck, failed, jobs, parked, attempts, deliveries/min', 'reads', {}, overviewSchema),
      async (_r, reply) => json(reply, 200, await readOverview(reads)),
    );
    scope.get<Q<ReceiptQuery>>(
      `${p}/receipts`,
      list('Receipts, newest claim first', 'reads', querySchemas.receipts, itemSchemas.receipt),
      async (request, reply) => json(reply, 200, await listReceipts(reads, request.query)),
    );
    scope.get<Q<DeliveryFilter & PageQuery>>(
      `${p}/deliveries`,
      list(
        'Webhook deliveries with their decision, newest first',
        'reads',
        querySchemas.deliveries,
        itemSchemas.delivery,
      ),
      async (request, reply) => json(reply, 200, await listDeliveries(reads, request.query)),
    );
    scope.get<P>(
      `${p}/deliveries/:id`,
      get('One delivery with its redacted payload', 'reads', {
        params: idParams,
        response: { 200: itemSchemas.delivery, ...commonErrors, 404: problemSchema },
      }),
      async (request, reply) => {
        const row = await reads.db
          .selectFrom('payonce_webhook_deliveries')
          .selectAll()
          .where('id', '=', request.params.id)
          .executeTakeFirst();
        if (!row) throw new ServiceError('DELIVERY_NOT_FOUND', `delivery ${request.params.id} not found`);
        const payload = row.payload === null ? null : (reads.redactor.redact(safeJson(row.payload)) as unknown);
        return json(reply, 200, { ...deliveryItem(reads, row), payload });
      },
    );
    scope.get<Q<JobQuery>>(
      `${p}/jobs`,
      list('Outbox jobs, newest first', 'reads', querySchemas.jobs, itemSchemas.job),
      async (request, reply) => json(reply, 200, await listJobs(reads, request.query)),
    );
    scope.get<Q<AttemptQuery>>(
      `${p}/attempts`,
      list('Payment attempts, newest first', 'reads', querySchemas.attempts, itemSchemas.attempt),
      async (request, reply) => json(reply, 200, await listAttempts(reads, request.query)),
    );
    scope.get<Q<OrderQuery>>(
      `${p}/orders`,
      list('Orders, newest first', 'reads', querySchemas.orders, itemSchemas.order),
      async (request, reply) => json(reply, 200, await listOrders(reads, request.query)),
    );
    scope.get<P>(
      `${p}/orders/:id/timeline`,
      get('One order: attempts, provider calls, deliveries, transitions, jobs, effects, alerts, actions', 'reads', {
        params: idParams,
        response: { 200: timelineSchema, ...commonErrors, 404: problemSchema },
      }),
      async (request, reply) => {
        const timeline = await orderTimeline(reads, request.params.id);
        if (!timeline)
          return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
        return json(reply, 200, timeline);
      },
    );
    scope.get<Q<ActionQuery>>(
      `${p}/actions`,
      list('The operator action journal, newest first', 'reads', querySchemas.actions, itemSchemas.action),
      async (request, reply) => json(reply, 200, await listActions(reads, request.query)),
    );

    scope.post<{ Body: { provider: string; externalId: string; expectedAttempts: number } }>(
      `${p}/receipts/release`,
      post('Release a stuck claim (compare-and-set on its attempt)', bodySchemas.release, [404, 409]),
      async (request, reply) => json(reply, 200, await actions.releaseClaim(actorOf(request), request.body)),
    );
    scope.post<{ Body: { provider: string; externalId: string } }>(
      `${p}/receipts/retry`,
      post('Retry a failed webhook receipt (replays its delivery)', bodySchemas.retry, [404, 409, 429]),
      async (request, reply) => json(reply, 200, await actions.retryReceipt(actorOf(request), request.body)),
    );
    scope.post<P>(
      `${p}/jobs/:id/rerun`,
      post('Rerun a dead-lettered outbox job once', bodySchemas.empty, [404, 409], true),
      async (request, reply) => json(reply, 200, await actions.rerunDeadJob(actorOf(request), request.params.id)),
    );
    scope.post<P>(
      `${p}/attempts/:id/reconcile`,
      post('Reconcile one payment attempt with the provider now', bodySchemas.empty, [404, 409], true),
      async (request, reply) => json(reply, 200, await actions.reconcileAttempt(actorOf(request), request.params.id)),
    );
    scope.post<P & { Body: { dryRun?: boolean } }>(
      `${p}/deliveries/:id/replay`,
      post(
        'Replay one delivery through the intake; a dry run unless the body says dryRun: false',
        bodySchemas.replayOne,
        [404, 409, 429],
        true,
      ),
      async (request, reply) =>
        json(
          reply,
          200,
          await actions.replayDelivery(actorOf(request), request.params.id, request.body?.dryRun !== false),
        ),
    );
    scope.post<{ Body: { dryRun?: boolean; limit?: number; filter?: DeliveryFilter } }>(
      `${p}/deliveries/replay`,
      post(
        'Replay the deliveries a filter selects (rate-limited); a dry run unless the body says dryRun: false',
        bodySchemas.replayRange,
        [409, 429],
      ),
      async (request, reply) => {
        const body = request.body ?? {};
        return json(
          reply,
          200,
          await actions.replayRange(actorOf(request), body.filter ?? {}, body.limit ?? 50, body.dryRun !== false),
        );
      },
    );
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
