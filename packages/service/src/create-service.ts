import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { fastifyIdempotencyKey, fastifyTransaction } from 'payonce/http/fastify';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { logIntake } from 'payonce/internal/observe/log-events.js';
import { InvalidPaymentEvent } from 'payonce/internal/payments/invalid-payment-event.js';
import type { CheckoutResult } from 'payonce/internal/payments/payments.js';
import type { ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import { createWebhookIntake, type WebhookEndpoint, type WebhookHandler } from 'payonce/internal/webhooks/intake.js';
import { WebhookDecline } from 'payonce/internal/webhooks/intake-decline.js';
import { stripeProfile } from 'payonce/internal/webhooks/providers/stripe-profile.js';
import { headerValue } from 'payonce/internal/webhooks/verify/headers.js';
import type { SignatureScheme } from 'payonce/internal/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from 'payonce/internal/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from 'payonce/internal/webhooks/verify/stripe-scheme.js';
import { fastifyWebhooks } from 'payonce/webhooks/fastify';
import { type BackgroundJobs, type DeferredBackgroundJobs, startBackgroundJobsWhenReady } from './background-jobs.js';
import { databaseReachable } from './database-reachable.js';
import { failureAnswer, SERVICE_BODY_LIMIT_BYTES, sendResponse, storeUnavailableProblem } from './http-edge.js';
import { orderMoneyOf } from './order-money.js';
import { attemptJson, orderJson, orderView } from './order-view.js';
import { paymentEventOf } from './payment-event-of.js';
import { NO_EVENT_TYPE, paymentEventProfile } from './payment-event-profile.js';
import { sandboxStandardWebhooksProfile } from './sandbox-standard-webhooks-profile.js';
import { serviceApp } from './service-app.js';
import type { ServiceContext } from './service-context.js';
import { ServiceError } from './service-error.js';
import type { ServiceMetrics } from './service-metrics.js';
import type { ServiceOptions } from './service-options.js';
import type { ServiceWebhookEndpoint } from './service-overrides.js';
import { serviceProblem } from './service-problems.js';
import { openServiceRuntime, type ServiceRuntime } from './service-runtime.js';
import { withinMs } from './within-ms.js';

/** A running reference service. */
export interface PaymentService {
  /** The fastify application (already listening). */
  readonly app: FastifyInstance;
  /** Base URL it listens on, e.g. `http://127.0.0.1:43117`. */
  readonly url: string;
  /** The parts it is built from (store, payments, outbox, clock, config, …), as the overrides see them. */
  readonly context: ServiceContext;
  readonly metrics: ServiceMetrics;
  /**
   * The in-process outbox worker and reconciliation loop: `null` with `worker: false`, and until the database has
   * answered and been migrated (a service started while its database is down).
   */
  readonly background: BackgroundJobs | null;
  /**
   * Graceful stop: stops accepting requests and waits for those in flight, stops the worker and the
   * reconciliation loop, then closes what it opened (Redis, the provider client, the database). Idempotent.
   */
  close(): Promise<void>;
}

/** Header naming the customer: the stand-in for authentication and the principal of `Idempotency-Key`. */
export const CUSTOMER_HEADER = 'x-customer-id';

const CHECKOUT_ROUTE = '/orders/:id/checkout';
/** Paths answered while the database is not ready yet: the probes. */
const ALWAYS_OPEN: ReadonlySet<string> = new Set(['/healthz', '/metrics']);
/**
 * Runs every store check at once, each bounded by `timeoutMs`: `ok`, or `unavailable` when it failed or did not
 * answer in time.
 */
async function checkStores(
  checks: Readonly<Record<string, () => Promise<unknown>>>,
  timeoutMs: number,
): Promise<Record<string, 'ok' | 'unavailable'>> {
  const names = Object.keys(checks);
  const states = await Promise.all(
    names.map(async (name) => {
      try {
        await withinMs(checks[name]!(), timeoutMs, 'store check');
        return 'ok' as const;
      } catch {
        return 'unavailable' as const;
      }
    }),
  );
  return Object.fromEntries(names.map((name, i) => [name, states[i]!]));
}

/** A customer id: 1–160 visible ASCII characters (`!`–`~`), like an `Idempotency-Key`. */
const CUSTOMER_ID = /^[\x21-\x7e]{1,160}$/;

function customerOf(request: FastifyRequest): string {
  // Node joins a repeated unknown header with ", ": read the lines as sent, so two headers are never one customer.
  const lines = request.raw.headersDistinct[CUSTOMER_HEADER] ?? [];
  if (lines.length > 1) throw new ServiceError('CUSTOMER_ID_INVALID', 'send X-Customer-Id once');
  const value = lines[0];
  if (value === undefined || value.trim() === '') {
    throw new ServiceError('CUSTOMER_ID_MISSING', 'send the customer id in X-Customer-Id');
  }
  if (!CUSTOMER_ID.test(value)) {
    throw new ServiceError('CUSTOMER_ID_INVALID', 'X-Customer-Id must be 1–160 visible ASCII characters');
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `charset` parameter of a Content-Type value (lower case, unquoted), or `null` when there is none. */
function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match ? (match[2] ?? '').toLowerCase() : null;
}

/**
 * JSON bodies in a scope: an empty body reads as `{}` (a JSON `null` stays `null`, refused by the routes), anything
 * unparsable is `INVALID_REQUEST_BODY`, a charset other than UTF-8 is 415 `UNSUPPORTED_MEDIA_TYPE` (RFC 8259 §8.1),
 * a body over `SERVICE_BODY_LIMIT_BYTES` is 413 `REQUEST_BODY_TOO_LARGE`.
 */
function lenientJson(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  const options = { parseAs: 'string', bodyLimit: SERVICE_BODY_LIMIT_BYTES } as const;
  scope.addContentTypeParser('application/json', options, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'send JSON in UTF-8 (charset=utf-8 or none)'), undefined);
      return;
    }
    const text = String(body).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ServiceError('INVALID_REQUEST_BODY', 'the body is not JSON'), undefined);
    }
  });
}

function rejectionOf(result: unknown): string | null {
  if (!isObject(result) || result.decision !== 'rejected') return null;
  return typeof result.reason === 'string' ? result.reason : 'rejected';
}

/**
 * Builds the webhook endpoints: Stripe events on `stripe`, the same provider's Standard Webhooks events on
 * `standard-webhooks`, each only when its secret is configured.
 */
export function webhookEndpoints(ctx: ServiceContext, options: ServiceOptions): Record<string, WebhookEndpoint> {
  const apply =
    options.overrides?.applyPaymentEvent ??
    ((c: ServiceContext, event: ProviderPaymentEvent) => c.payments.applyProviderEvent(event));
  const schemeFor = (endpoint: ServiceWebhookEndpoint, byDefault: SignatureScheme) =>
    options.overrides?.signatureScheme ? options.overrides.signatureScheme(endpoint, byDefault) : byDefault;
  const handler: WebhookHandler = async (event) => {
    const paymentEvent: ProviderPaymentEvent | null = paymentEventOf(event, ctx.provider.name);
    if (paymentEvent === null) {
      const reason = event.eventType === NO_EVENT_TYPE ? 'no event type' : 'no handler for this event type';
      ctx.logger.info(
        { provider: event.provider, eventId: event.eventId, eventType: event.eventType, reason },
        'webhook acknowledged with no business action',
      );
      return { received: true, ignored: true, reason };
    }
    let result: unknown;
    try {
      result = await apply(ctx, paymentEvent);
    } catch (error) {
      if (error instanceof InvalidPaymentEvent) throw new WebhookDecline('invalid_payment_event', error.message);
      throw error;
    }
    const rejected = rejectionOf(result);
    if (rejected !== null) throw new WebhookDecline('payment_rejected', rejected);
    const decision = isObject(result) && typeof result.decision === 'string' ? result.decision : null;
    return { received: true, decision };
  };
  const { config } = ctx;
  const endpoints: Record<string, WebhookEndpoint> = {};
  if (config.stripeWebhookSecrets.length > 0) {
    endpoints.stripe = {
      profile: paymentEventProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null)),
      scheme: schemeFor(
        'stripe',
        stripeScheme({ secrets: config.stripeWebhookSecrets, toleranceSeconds: config.webhookToleranceSec }),
      ),
      handler,
    };
  }
  if (config.standardWebhooksSecrets.length > 0) {
    endpoints['standard-webhooks'] = {
      profile: paymentEventProfile(
        sandboxStandardWebhooksProfile(),
        (_body, headers) =>
          (headers && (headerValue(headers, 'svix-id') ?? headerValue(headers, 'webhook-id'))) ?? null,
      ),
      scheme: schemeFor(
        'standard-webhooks',
        standardWebhooksScheme({
          secrets: config.standardWebhooksSecrets,
          toleranceSeconds: config.webhookToleranceSec,
        }),
      ),
      handler,
    };
  }
  return endpoints;
}

/** `POST /orders/:id/checkout` (Idempotency-Key required, default mode: checkout calls the provider). */
function registerCheckout(
  app: FastifyInstance,
  ctx: ServiceContext,
  runtime: ServiceRuntime,
  checkout: (c: ServiceContext, id: string, who: string) => Promise<CheckoutResult>,
): void {
  app.post<{ Params: { id: string } }>(CHECKOUT_ROUTE, async (request, reply) => {
    const body = request.body === undefined ? {} : request.body;
    if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'the checkout body is empty or {}');
    const orderId = request.params.id;
    let result: CheckoutResult;
    try {
      result = await checkout(ctx, orderId, customerOf(request));
    } catch (error) {
      runtime.metrics.checkouts.inc({ outcome: 'error' });
      throw error;
    }
    if (result.kind === 'already-paid') {
      // The order and its paying attempt as read together under the order lock: a refund that commits after that
      // transaction must not turn this answer into "already-paid" with a `refunded` order (stored and replayed).
      runtime.metrics.checkouts.inc({ outcome: 'already-paid' });
      const attempt = result.paidAttempt && attemptJson(result.paidAttempt);
      return reply.code(200).send({ outcome: 'already-paid', order: orderJson(result.order), attempt });
    }
    const order = await ctx.payments.findOrder(orderId);
    const outcome = result.created ? 'created' : 'existing';
    runtime.metrics.checkouts.inc({ outcome });
    return reply
      .code(result.created ? 201 : 200)
      .send({ outcome, order: order && orderJson(order), attempt: attemptJson(result.attempt) });
  });
}

/** `POST /orders`, `POST /orders/:id/checkout`, `GET /orders/:id` in one scope with Idempotency-Key. */
async function registerOrders(
  app: FastifyInstance,
  ctx: ServiceContext,
  runtime: ServiceRuntime,
  options: ServiceOptions,
) {
  const checkout =
    options.overrides?.checkout ?? ((c: ServiceContext, id: string, who: string) => c.payments.openCheckout(id, who));
  await app.register(async (scope) => {
    lenientJson(scope);
    scope.setErrorHandler(async (error, request, reply) => {
      const where = { url: request.url, what: 'request failed' };
      return sendResponse(reply, await failureAnswer(error, () => databaseReachable(ctx), ctx.logger, where));
    });
    scope.addHook('onRequest', async (request) => {
      customerOf(request);
    });
    // POST /orders in the one-commit mode: the order row and its Idempotency-Key receipt commit in ONE
    // transaction, so a process killed between the two leaves neither and the retry creates the order once
    // (issue 11 item 1). Checkout calls the provider and runs transactions of its own: default mode, own scope.
    await scope.register(async (orders) => {
      await orders.register(
        fastifyIdempotencyKey({
          guard: ctx.httpGuard,
          principal: customerOf,
          transaction: true,
          requireKey: () => false,
        }),
      );
      orders.post('/orders', async (request, reply) => {
        const body = request.body === undefined ? {} : request.body;
        if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'send { "amountMinor": …, "currency": … }');
        const tx = fastifyTransaction<Transaction<unknown>>(request);
        const order = await ctx.payments.createOrder(customerOf(request), orderMoneyOf(body), tx);
        return reply.code(201).send({ order: orderJson(order) });
      });
    });
    await scope.register(async (checkouts) => {
      await checkouts.register(
        fastifyIdempotencyKey({
          guard: ctx.httpGuard,
          principal: customerOf,
          requireKey: (route) => route.route === CHECKOUT_ROUTE,
        }),
      );
      registerCheckout(checkouts, ctx, runtime, checkout);
    });

    scope.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
      const view = await orderView(ctx, request.params.id, customerOf(request));
      if (!view) return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
      return reply.send(view);
    });
  });
}

/**
 * The operator console's module, loaded only when an admin token is set, so a service without one does not load
 * its packages (`@fastify/static`, `@fastify/swagger`, `@fastify/cookie`, dependencies of this package).
 * @throws {MissingPeer} one of them is not installed (a broken install).
 */
function loadAdminConsole(): Promise<typeof import('./admin/admin-console.js')> {
  return importWithPeers('the operator console', () => import('./admin/admin-console.js'));
}

/**
 * Starts the reference payment service of docs/service.md on fastify 5 and returns once it listens:
 * `POST /orders`, `POST /orders/:id/checkout` (`Idempotency-Key` required, scoped by `X-Customer-Id`),
 * `GET /orders/:id` (`OrderView`), `POST /webhooks/stripe` and `POST /webhooks/standard-webhooks` (the webhook
 * intake with its SQL journal; each only with its secret), `GET /healthz`, `GET /metrics`, and the operator
 * console (`/admin/api/*`, `/console`; only with `adminToken`, docs/console.md). Unless `worker: false` it also runs
 * the outbox worker (fulfilment, refunds) and the reconciliation loop in-process. The database is migrated on start;
 * when it is down then, the service listens anyway and answers every route but `/healthz` and `/metrics` 503
 * `STORE_UNAVAILABLE` with `Retry-After` (`/healthz`: 503 `starting`) until it answers, then migrates it and starts
 * the worker. Any later database failure is answered 503 + `Retry-After` too, never a bare 500.
 *
 * A verified webhook event is mapped to a payment event (`paymentEventOf`) and applied by
 * `payments.applyProviderEvent` inside the intake's receipt claim. A report `Payments` rejects (foreign order,
 * amount, currency, payment id) is alerted and answered `200 {"received":true,"declined":{"code":
 * "payment_rejected",…}}`, journaled `new / declined`: a definitive business refusal the provider must not
 * retry (docs/webhooks.md, `WebhookDecline`). An authentic delivery with an event id but a type the service does
 * not handle, or none, is acknowledged once (`{"received":true,"ignored":true,"reason":…}`), journaled and
 * logged, with no business action; one without an id, not JSON, or a handled payment type it cannot act on is
 * refused 400 with no receipt (`paymentEventProfile`). A refund that arrives while its attempt is still active
 * (before the success it refunds) is parked by `Payments` (answered 200 `parked`) and applied with the success.
 * @throws {InvalidOption} a bad setting, no `providerUrl` and no `provider`, a malformed webhook secret.
 * @throws the driver's or fastify's error when a SQLite file, Redis or the port cannot be opened (everything
 *   opened is closed again).
 * @see docs/service.md; docs/design.md §2, §5–7.
 * @example
 * const service = await createService({ databaseUrl: 'shop.sqlite', providerUrl: sandbox.url, port: 0,
 *   stripeWebhookSecrets: sandbox.controls.signing().secret });
 * console.log(service.url); … await service.close();
 */
export async function createService(options: ServiceOptions = {}): Promise<PaymentService> {
  const runtime = await openServiceRuntime(options);
  const ctx = runtime.context;
  const startedAtMs = ctx.clock.now();
  const app = serviceApp(ctx);
  // Until the database has answered and been migrated, every route but the probes answers 503 + Retry-After.
  app.addHook('onRequest', async (request, reply) => {
    if (runtime.readiness.ready || ALWAYS_OPEN.has(request.url.split('?')[0] ?? '')) return;
    return sendResponse(reply, storeUnavailableProblem());
  });
  let background: DeferredBackgroundJobs | null = null;
  try {
    const endpoints = webhookEndpoints(ctx, options);
    if (Object.keys(endpoints).length > 0) {
      const intake = createWebhookIntake({ guard: ctx.intakeGuard, journal: ctx.journal, endpoints });
      runtime.metrics.observeIntake(intake);
      logIntake(intake, ctx.logger);
      await app.register(fastifyWebhooks(intake));
    }
    await registerOrders(app, ctx, runtime, options);
    if (ctx.config.adminToken !== null) {
      const { registerAdminConsole, replayPartsOf } = await loadAdminConsole();
      await registerAdminConsole(app, ctx, {
        adminToken: ctx.config.adminToken,
        replay: replayPartsOf(ctx, endpoints),
        providerAvailable: true,
      });
    }
    app.get('/healthz', async (_request, reply) => {
      const stores = await checkStores(runtime.storeChecks, ctx.config.storeTimeoutMs);
      const ready = runtime.readiness.ready;
      const healthy = ready && Object.values(stores).every((state) => state === 'ok');
      if (!healthy) reply.header('retry-after', storeUnavailableProblem().headers['retry-after']);
      const health = {
        status: healthy ? 'ok' : ready ? 'unavailable' : 'starting',
        pid: process.pid,
        startedAtMs,
        database: ctx.store.name,
        receipts: runtime.receipts,
        stores,
      };
      return reply.code(healthy ? 200 : 503).send(health);
    });
    app.get('/metrics', async (_request, reply) =>
      reply.header('content-type', runtime.metrics.contentType).send(await runtime.metrics.metrics()),
    );
    const url = await app.listen({ host: ctx.config.host, port: ctx.config.port });
    if (ctx.config.worker) background = startBackgroundJobsWhenReady(runtime);
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        await app.close();
        await background?.stop();
        await runtime.close();
      })();
      return closing;
    };
    ctx.logger.info({ url, database: ctx.store.name, receipts: runtime.receipts }, 'payonce service listening');
    const jobs = background;
    return Object.freeze({
      app,
      url,
      context: ctx,
      metrics: runtime.metrics,
      get background(): BackgroundJobs | null {
        return jobs?.current ?? null;
      },
      close,
    });
  } catch (error) {
    await app.close().catch(() => {});
    await runtime.close();
    throw error;
  }
}
