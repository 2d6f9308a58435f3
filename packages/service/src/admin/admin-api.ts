import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyIdempotencyKey } from 'payonce/http/fastify';
import { SERVICE_BODY_LIMIT_BYTES, sendResponse } from '../http-edge.js';
import { ServiceError } from '../service-error.js';
import { serviceProblem } from '../service-problems.js';
import { actorOf, admitRequest, sessionOf } from './admin-actor.js';
import type { Page, PageQuery } from './admin-cursor.js';
import { journalFailure, sendProblem } from './admin-failures.js';
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
import { ADMIN_OPENAPI, withActionHeaders } from './admin-openapi.js';
import { readOverview } from './admin-overview.js';
import type { AdminParts } from './admin-parts.js';
import { type PaymeStatementQuery, readPaymeStatement } from './admin-payme-statement.js';
import {
  listProviderTransactions,
  orderProviderTransactions,
  type ProviderTransactionQuery,
} from './admin-provider-transactions.js';
import type { AdminReads } from './admin-reads.js';
import {
  actionResultSchema,
  bodySchemas,
  commonErrors,
  itemSchemas,
  orderProviderTransactionsSchema,
  overviewSchema,
  pageSchema,
  paymeStatementSchema,
  problemSchema,
  providerTransactionSchema,
  querySchemas,
  sessionSchema,
  timelineSchema,
} from './admin-schemas.js';
import { orderTimeline } from './admin-timeline.js';
import { nonAsciiViolation, type StrictSchema, strictInputViolation } from './strict-input.js';

export type { AdminParts } from './admin-parts.js';

/** Prefix of every admin API route. */
export const ADMIN_API_PREFIX = '/admin/api';

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

/** One list of the admin API: `GET /admin/api/<path>`, its query and item schemas, and the read behind it. */
interface ListRoute {
  readonly path: string;
  readonly summary: string;
  readonly query: Record<string, unknown>;
  readonly item: Record<string, unknown>;
  /** The page for a query the route's schema has validated. */
  readonly read: (reads: AdminReads, query: unknown) => Promise<Page<unknown>>;
}

/** A list route whose reader takes the query type its schema validates (Ajv checked it before the handler). */
function listRoute<T>(
  path: string,
  summary: string,
  query: Record<string, unknown>,
  item: Record<string, unknown>,
  read: (reads: AdminReads, query: T) => Promise<Page<unknown>>,
): ListRoute {
  return { path, summary, query, item, read: (reads, value) => read(reads, value as T) };
}

/** The keyset-paged lists, newest first (docs/console.md). */
const LIST_ROUTES: readonly ListRoute[] = [
  listRoute<ReceiptQuery>(
    'receipts',
    'Receipts, newest claim first',
    querySchemas.receipts,
    itemSchemas.receipt,
    listReceipts,
  ),
  listRoute<DeliveryFilter & PageQuery>(
    'deliveries',
    'Webhook deliveries with their decision, newest first',
    querySchemas.deliveries,
    itemSchemas.delivery,
    listDeliveries,
  ),
  listRoute<JobQuery>('jobs', 'Outbox jobs, newest first', querySchemas.jobs, itemSchemas.job, listJobs),
  listRoute<AttemptQuery>(
    'attempts',
    'Payment attempts, newest first',
    querySchemas.attempts,
    itemSchemas.attempt,
    listAttempts,
  ),
  listRoute<OrderQuery>('orders', 'Orders, newest first', querySchemas.orders, itemSchemas.order, listOrders),
  listRoute<ActionQuery>(
    'actions',
    'The operator action journal, newest first',
    querySchemas.actions,
    itemSchemas.action,
    listActions,
  ),
  listRoute<ProviderTransactionQuery>(
    'provider-transactions',
    "One provider's transactions (Payme, Click or Uzum engine), newest first",
    querySchemas.providerTransactions,
    providerTransactionSchema,
    listProviderTransactions,
  ),
];

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
    await scope.register(fastifySwagger, ADMIN_OPENAPI);
    jsonBodies(scope);
    scope.setErrorHandler((error, request, reply) => sendProblem(parts, error, request, reply));
    scope.addHook('onRequest', async (request) => {
      admitRequest(sessions, request);
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
        const session = sessionOf(request);
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
    for (const route of LIST_ROUTES) {
      scope.get(`${p}/${route.path}`, list(route.summary, 'reads', route.query, route.item), async (request, reply) =>
        json(reply, 200, await route.read(reads, request.query)),
      );
    }
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
    scope.get<P>(
      `${p}/orders/:id/timeline`,
      get('One order: attempts, provider calls, deliveries, transitions, jobs, effects, alerts, actions', 'reads', {
        params: idParams,
        response: { 200: timelineSchema, ...commonErrors, 404: problemSchema },
      }),
      async (request, reply) => {
        const timeline = await orderTimeline(reads, request.params.id, ctx.config.otelTraceUrl);
        if (!timeline)
          return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
        return json(reply, 200, timeline);
      },
    );
    scope.get<P>(
      `${p}/orders/:id/provider-transactions`,
      get("One order's Payme, Click and Uzum transactions, newest first", 'reads', {
        params: idParams,
        response: { 200: orderProviderTransactionsSchema, ...commonErrors, 404: problemSchema },
      }),
      async (request, reply) => {
        const transactions = await orderProviderTransactions(reads, request.params.id);
        if (!transactions)
          return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
        return json(reply, 200, transactions);
      },
    );
    scope.get<{ Querystring: PaymeStatementQuery }>(
      `${p}/payme/statement`,
      get(
        'The Payme statement of a time range: the rows GetStatement answers',
        'reads',
        {
          querystring: querySchemas.paymeStatement,
        },
        paymeStatementSchema,
      ),
      async (request, reply) =>
        json(reply, 200, await readPaymeStatement(reads, request.query, ctx.config.paymeAccountField)),
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
