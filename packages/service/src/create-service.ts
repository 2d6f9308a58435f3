import type { FastifyInstance } from 'fastify';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { logIntake } from 'payonce/internal/observe/log-events.js';
import { createWebhookIntake } from 'payonce/internal/webhooks/intake.js';
import { fastifyWebhooks } from 'payonce/webhooks/fastify';
import { type BackgroundJobs, type DeferredBackgroundJobs, startBackgroundJobsWhenReady } from './background-jobs.js';
import { registerClick } from './click-endpoint.js';
import { closeServer } from './close-server.js';
import { ALWAYS_OPEN, registerHealthRoutes } from './health-routes.js';
import { sendResponse, storeUnavailableProblem } from './http-edge.js';
import { providerNotConfigured, registerOrders } from './order-routes.js';
import { registerPayme } from './payme-endpoint.js';
import { serviceApp } from './service-app.js';
import type { ServiceContext } from './service-context.js';
import type { ServiceMetrics } from './service-metrics.js';
import type { ServiceOptions } from './service-options.js';
import { openServiceRuntime } from './service-runtime.js';
import { registerTelegram } from './telegram-endpoint.js';
import { registerTelegramOrderRoutes } from './telegram-order-routes.js';
import { registerUzum } from './uzum-endpoint.js';
import { oneCommitWebhooks, webhookEndpoints } from './webhook-endpoints.js';

/** The webhook routes of the Stripe-shaped provider, answered 409 `PROVIDER_NOT_CONFIGURED` without it. */
const STRIPE_SHAPED_WEBHOOKS = ['/webhooks/stripe', '/webhooks/standard-webhooks'] as const;

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
 * intake with its SQL journal; each only with its secret), `POST /payme` (the Payme Merchant API on the service's
 * orders, `servicePaymeMerchant`; only with `paymeKeys`), `POST /click/prepare` + `/click/complete` (Click's SHOP API,
 * `serviceClickMerchant`; only with `clickServiceId` + `clickSecretKey`), `POST /uzum/check|create|confirm|reverse|
 * status` (Uzum Bank's Merchant API, `serviceUzumMerchant`; only with `uzumLogin`, `uzumPassword`, `uzumServiceId`),
 * `POST /telegram/webhook`, `POST /orders/:id/telegram-invoice` and `/telegram-refund` (the bot's updates in one-commit
 * mode and Telegram Stars payments of `XTR` orders, `serviceTelegramIntake`; only with `telegramBotToken` and
 * `telegramSecretToken`),
 * `GET /healthz`, `GET /metrics`, and the operator
 * console (`/admin/api/*`, `/console`; only with `adminToken`, docs/console.md). Unless `worker: false` it also runs
 * the outbox worker (fulfilment, refunds) and the reconciliation loop in-process. The database is migrated on start;
 * when it is down then, the service listens anyway and answers every route but `/healthz` and `/metrics` 503
 * `STORE_UNAVAILABLE` with `Retry-After` (`/healthz`: 503 `starting`) until it answers, then migrates it and starts
 * the worker. Any later database failure is answered 503 + `Retry-After` too, never a bare 500. With `otelUrl`
 * (`--otel`) the OpenTelemetry SDK is registered first, every request gets an HTTP server span (W3C `traceparent`
 * continued) and each order its trace id (`OrderView.traceId`, the console); docs/service.md "OpenTelemetry".
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
 * Without `providerUrl` (and `provider`) the service starts when Payme, Click or Uzum is configured: checkout and
 * both webhook routes then answer 409 `PROVIDER_NOT_CONFIGURED` (nothing written).
 * @throws {InvalidOption} a bad setting, no `providerUrl`, no `provider` and none of Payme, Click, Uzum; a malformed
 *   webhook secret.
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
  // First, so that every answer (the readiness gate's 503 included) gets its server span.
  runtime.tracing?.registerHttpSpans(app);
  // Until the database has answered and been migrated, every route but the probes answers 503 + Retry-After.
  app.addHook('onRequest', async (request, reply) => {
    if (runtime.readiness.ready || ALWAYS_OPEN.has(request.url.split('?')[0] ?? '')) return;
    return sendResponse(reply, storeUnavailableProblem());
  });
  let background: DeferredBackgroundJobs | null = null;
  try {
    const endpoints = ctx.checkoutAvailable ? webhookEndpoints(ctx, options) : {};
    if (!ctx.checkoutAvailable) {
      for (const path of STRIPE_SHAPED_WEBHOOKS) {
        app.post(path, async () => {
          throw providerNotConfigured(`POST ${path}`);
        });
      }
    }
    if (Object.keys(endpoints).length > 0) {
      // One-commit endpoints share their transactions' commits (docs/design.md §11 "Group commit").
      const groupCommit = oneCommitWebhooks(ctx, options);
      const intake = createWebhookIntake({ guard: ctx.intakeGuard, journal: ctx.journal, endpoints, groupCommit });
      runtime.metrics.observeIntake(intake);
      logIntake(intake, ctx.logger);
      await app.register(fastifyWebhooks(intake));
    }
    await registerOrders(app, ctx, runtime, options);
    await registerPayme(app, ctx);
    await registerClick(app, ctx);
    await registerUzum(app, ctx);
    const telegram = await registerTelegram(app, ctx);
    if (telegram !== null) {
      runtime.metrics.observeIntake(telegram.intake);
      logIntake(telegram.intake, ctx.logger);
      registerTelegramOrderRoutes(app, ctx, telegram.telegram);
    }
    if (ctx.config.adminToken !== null) {
      const { registerAdminConsole, replayPartsOf } = await loadAdminConsole();
      await registerAdminConsole(app, ctx, {
        adminToken: ctx.config.adminToken,
        replay: replayPartsOf(ctx, endpoints),
        providerAvailable: ctx.checkoutAvailable,
      });
    }
    registerHealthRoutes(app, ctx, runtime, startedAtMs);
    const url = await app.listen({ host: ctx.config.host, port: ctx.config.port });
    if (ctx.config.worker) background = startBackgroundJobsWhenReady(runtime);
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        await closeServer(app);
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
