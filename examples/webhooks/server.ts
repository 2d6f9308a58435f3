/**
 * Webhook receiver example: fastify 5 + SQLite. Stripe and Standard Webhooks deliveries go through the intake
 * (size limit → signature on the raw bytes → extract → receipt claim → handler → acknowledgement); the business
 * handler fulfils each payment once; every delivery gets a redacted row in the journal on the same SQLite file.
 *
 * Run: `npx tsx examples/webhooks/server.ts [sqlite-file]` (or `node --import tsx examples/webhooks/server.ts`).
 * It prints `listening on http://127.0.0.1:<port>` on stdout when ready and shuts down cleanly on SIGTERM/SIGINT.
 *
 * Environment (all optional):
 * - `PAYONCE_SQLITE_PATH`: the SQLite file (a command-line argument wins); default a new file in a temporary
 *   directory, deleted on shutdown. Migrated on start (receipts and `payonce_webhook_deliveries`).
 * - `PORT`: listening port on 127.0.0.1 (0 picks a free one). Default 3000.
 * - `PAYONCE_STRIPE_WEBHOOK_SECRET`: the Stripe endpoint secret (`whsec_…`, used verbatim); several
 *   comma-separated during rotation. Default {@link PLACEHOLDER_SECRETS}.stripe (a placeholder, not a real key).
 * - `PAYONCE_STANDARD_WEBHOOKS_SECRET`: the Standard Webhooks secret (`whsec_` + base64); several
 *   comma-separated during rotation. Default {@link PLACEHOLDER_SECRETS}.standardWebhooks (a placeholder).
 * - `PAYONCE_LOG_LEVEL`: pino level (`debug` also logs each redacted payload). Default `info`.
 *
 * Routes:
 * - `POST /webhooks/stripe`, `POST /webhooks/standard-webhooks`: the provider endpoints.
 * - `GET /metrics`: Prometheus text exposition (`WebhookMetrics`: deliveries by provider and decision, duplicate
 *   ratio, handler and delivery durations, receipt events, receipts stuck in processing).
 * - `GET /deliveries?payment=<pi_… | object id | merchant reference>`: the journal rows for that payment.
 * - `GET /fulfilments`: what the business handler fulfilled (read-only).
 *
 * Try it with the Stripe CLI: `stripe listen --forward-to localhost:3000/webhooks/stripe` and start the server
 * with `PAYONCE_STRIPE_WEBHOOK_SECRET` set to the secret the CLI prints.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { logGuard, logIntake } from '../../packages/payonce/src/observe/log-events.js';
import { createLogger } from '../../packages/payonce/src/observe/logger.js';
import { sqlStuckReceipts } from '../../packages/payonce/src/observe/sql-stuck-receipts.js';
import { WebhookMetrics } from '../../packages/payonce/src/observe/webhook-metrics.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { fastifyWebhooks } from '../../packages/payonce/src/webhooks/fastify-webhooks.js';
import { createWebhookIntake, type WebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import type { DeliveryJournal } from '../../packages/payonce/src/webhooks/journal/delivery-journal.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import type { ProviderEvent } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { examplePort, isMain } from '../shared/example-options.js';

/** Placeholder secrets used when the environment sets none: fine for a local try-out, useless for real traffic. */
export const PLACEHOLDER_SECRETS = Object.freeze({
  stripe: 'whsec_example_stripe_placeholder',
  /** `whsec_` + base64 of `payonce-example-placeholder-key!`. */
  standardWebhooks: 'whsec_cGF5b25jZS1leGFtcGxlLXBsYWNlaG9sZGVyLWtleSE=',
});

/** Signing secrets per endpoint; each may list several during a rotation. */
export interface WebhookExampleSecrets {
  readonly stripe: string | readonly string[];
  readonly standardWebhooks: string | readonly string[];
}

/** One fulfilled payment, as the business handler recorded it. */
export interface Fulfilment {
  /** The payment the fulfilment is for (`paymentId`, else `objectId`, else the event id). */
  readonly payment: string;
  readonly provider: string;
  /** The event that caused it (later events about the same payment do not fulfil again). */
  readonly eventId: string | null;
  readonly eventType: string;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  readonly fulfilledAtMs: number;
}

/** Options of {@link createWebhookExampleApp}. */
export interface WebhookExampleOptions {
  /** A migrated SQLite store: receipts and the delivery journal live in it. The app does not close it. */
  readonly store: SqliteStore;
  /** @default the environment, else {@link PLACEHOLDER_SECRETS} (see {@link secretsFromEnv}) */
  readonly secrets?: WebhookExampleSecrets;
  /** The pino logger (redacting). @default `createLogger` with the intake's redactor, level `PAYONCE_LOG_LEVEL` */
  readonly logger?: Logger;
  /** Where the default logger writes. @default stdout */
  readonly logDestination?: DestinationStream;
  /** Age after which a receipt still in processing counts as stuck in `GET /metrics`. @default 60_000 */
  readonly stuckAfterMs?: number;
}

/** The built example (not yet listening). */
export interface WebhookExampleApp {
  readonly app: FastifyInstance;
  readonly intake: WebhookIntake;
  readonly journal: DeliveryJournal;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  /** Fulfilments by payment, read-only (the handler is the only writer). */
  readonly fulfilments: ReadonlyMap<string, Fulfilment>;
}

/** Splits a comma-separated secret list; blanks are dropped (an unset or empty variable means "use the default"). */
function secretsOf(value: string | undefined, fallback: string): string[] {
  const list = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list.length > 0 ? list : [fallback];
}

/**
 * The endpoint secrets from `PAYONCE_STRIPE_WEBHOOK_SECRET` and `PAYONCE_STANDARD_WEBHOOKS_SECRET`
 * (comma-separated for rotation), each defaulting to its {@link PLACEHOLDER_SECRETS} entry.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): WebhookExampleSecrets {
  return {
    stripe: secretsOf(env.PAYONCE_STRIPE_WEBHOOK_SECRET, PLACEHOLDER_SECRETS.stripe),
    standardWebhooks: secretsOf(env.PAYONCE_STANDARD_WEBHOOKS_SECRET, PLACEHOLDER_SECRETS.standardWebhooks),
  };
}

/**
 * Builds the webhook receiver on `options.store`: the intake (Stripe at `/webhooks/stripe`, Standard Webhooks at
 * `/webhooks/standard-webhooks`), a fulfilment handler that acts once per payment, the SQL delivery journal,
 * pino logging of deliveries and receipt events (redacted with the journal's redactor), `GET /metrics`,
 * `GET /deliveries?payment=…` and `GET /fulfilments`. Call `app.listen` to serve it.
 * @throws {InvalidOption} a malformed secret (e.g. a Standard Webhooks secret that is not base64).
 * @example
 * const store = await SqliteStore.open('webhooks.db');
 * await store.migrate();
 * const { app } = await createWebhookExampleApp({ store });
 * await app.listen({ port: 3000, host: '127.0.0.1' });
 */
export async function createWebhookExampleApp(options: WebhookExampleOptions): Promise<WebhookExampleApp> {
  const { store } = options;
  const secrets = options.secrets ?? secretsFromEnv();
  const guard = new IdempotencyGuard(store);
  const journal = new SqlDeliveryJournal(store);
  const fulfilments = new Map<string, Fulfilment>();

  // The business step. The intake runs it at most once to completion per event; two events about one payment
  // (checkout.session.completed, then payment_intent.succeeded) fulfil it once because of the map check.
  const fulfil = (event: ProviderEvent) => {
    const payment = event.paymentId ?? event.objectId ?? event.eventId ?? event.eventType;
    const existing = fulfilments.get(payment);
    if (existing) return { received: true, payment, fulfilled: false };
    fulfilments.set(payment, {
      payment,
      provider: event.provider,
      eventId: event.eventId,
      eventType: event.eventType,
      amountMinor: event.amountMinor,
      currency: event.currency,
      fulfilledAtMs: Date.now(),
    });
    return { received: true, payment, fulfilled: true };
  };

  const intake = createWebhookIntake({
    guard,
    journal,
    endpoints: {
      stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: secrets.stripe }), handler: fulfil },
      'standard-webhooks': {
        profile: standardWebhooksProfile(),
        scheme: standardWebhooksScheme({ secrets: secrets.standardWebhooks }),
        handler: fulfil,
      },
    },
  });

  const logger =
    options.logger ??
    createLogger({
      redaction: intake.redactor,
      level: process.env.PAYONCE_LOG_LEVEL ?? 'info',
      base: { service: 'payonce-webhooks-example' },
      destination: options.logDestination,
    });
  logIntake(intake, logger);
  logGuard(guard, logger);

  const stuckAfterMs = options.stuckAfterMs ?? 60_000;
  const metrics = new WebhookMetrics({
    stuckAfterMs,
    countStuck: sqlStuckReceipts(store, { olderThanMs: stuckAfterMs }),
  });
  metrics.observeGuard(guard);
  metrics.observeIntake(intake);

  const app = Fastify();
  await app.register(fastifyWebhooks(intake));
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', metrics.contentType).send(await metrics.metrics()),
  );
  app.get<{ Querystring: { payment?: string } }>('/deliveries', async (request, reply) => {
    const payment = request.query.payment;
    if (typeof payment !== 'string' || payment === '') {
      return reply.code(400).send({ error: 'query parameter "payment" is required' });
    }
    return reply.send({ payment, deliveries: await journal.forPayment(payment) });
  });
  app.get('/fulfilments', async (_request, reply) => reply.send({ fulfilments: [...fulfilments.values()] }));

  return { app, intake, journal, metrics, logger, fulfilments };
}

/** The SQLite file of a started example: argv, `PAYONCE_SQLITE_PATH`, else a new temporary file (and its cleanup). */
function databasePath(): { path: string; cleanup: () => void } {
  const given = process.argv[2] ?? process.env.PAYONCE_SQLITE_PATH;
  if (given) return { path: given, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'payonce-webhooks-'));
  return { path: join(dir, 'webhooks.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

if (isMain(import.meta.url)) {
  const database = databasePath();
  const store = await SqliteStore.open(database.path);
  await store.migrate();
  const { app, logger } = await createWebhookExampleApp({ store });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      await app.close();
      await store.close();
      database.cleanup();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  const address = await app.listen({ port: examplePort(), host: '127.0.0.1' });
  logger.info({ url: address, database: database.path }, 'webhook example listening');
  console.log(`listening on ${address}`);
}
