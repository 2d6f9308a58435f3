import { SandboxClient } from '@payonce/sandbox/internal/sandbox-client.js';
import { sql } from 'kysely';
import { type Clock, systemClock } from 'payonce/internal/core/clock.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { MAX_TIMER_MS } from 'payonce/internal/core/options.js';
import { createLogger } from 'payonce/internal/observe/logger.js';
import { sqlStuckReceipts } from 'payonce/internal/observe/sql-stuck-receipts.js';
import type { PaymentProvider } from 'payonce/internal/payments/payment-provider.js';
import { Payments } from 'payonce/internal/payments/payments.js';
import type { RedisStore } from 'payonce/internal/stores/redis/redis-store.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';
import { createRedactor } from 'payonce/internal/webhooks/journal/redact.js';
import { SqlDeliveryJournal } from 'payonce/internal/webhooks/journal/sql-delivery-journal.js';
import { pino } from 'pino';
import { noProvider } from './no-provider.js';
import { openServiceStore } from './open-service-store.js';
import { resolveServiceConfig, type ServiceConfig } from './service-config.js';
import type { ServiceContext } from './service-context.js';
import { ServiceError } from './service-error.js';
import { ServiceMetrics } from './service-metrics.js';
import { serviceNestedClaims } from './service-nested-claims.js';
import type { ServiceOptions } from './service-options.js';
import { FULFILMENTS_TABLE, REFUNDS_TABLE } from './service-tables.js';
import { openServiceTracing, type ServiceTracing } from './service-tracing.js';
import { StoreReadiness } from './store-readiness.js';
import { withinMs } from './within-ms.js';

/**
 * How long, in milliseconds, the service waits for its database to connect, to lend a pooled connection or to
 * answer one statement (PostgreSQL), and for the first migration try before it listens anyway: 5 ×
 * `storeTimeoutMs` (10 s by default). A database that accepts TCP and never answers thus gets 503s, never a hang
 * (issue 34 item H1); five times the health bound leaves a loaded but live database room to answer.
 */
export function databaseWaitMs(config: Pick<ServiceConfig, 'storeTimeoutMs'>): number {
  return Math.min(5 * config.storeTimeoutMs, MAX_TIMER_MS);
}

/** Store-wide stuck receipts for `payonce_receipts_stuck`, each count bounded by `waitMs` (a silent database). */
function boundedStuckCount(store: SqlStore<unknown>, clock: Clock, waitMs: number): () => Promise<number> {
  const countStuck = sqlStuckReceipts(store, { olderThanMs: 60_000, clock });
  return () => withinMs(countStuck(), waitMs, 'receipts_stuck read');
}

/** Whether Payme, Click, Uzum or Telegram is configured (each pays orders without the Stripe-shaped provider). */
export function localProviderConfigured(config: ServiceConfig): boolean {
  return config.paymeKeys.length > 0 || config.click !== null || config.uzum !== null || config.telegram !== null;
}

/** The parts of the service shared by `payonce serve` and `payonce worker`, before any HTTP route or job loop. */
export interface ServiceRuntime {
  readonly context: ServiceContext;
  readonly metrics: ServiceMetrics;
  /**
   * Where the intake's receipts live: `custom` when `overrides.intakeGuard` supplies the guard (its store is the
   * caller's), `redis` with `redisUrl`, else `sql`. `/healthz` reports it.
   */
  readonly receipts: 'sql' | 'redis' | 'custom';
  /**
   * One check per store the service uses (`database`, and `receipts` when the intake's receipts are in Redis),
   * each resolving when its store answers; `/healthz` runs them all, each bounded by `storeTimeoutMs`.
   */
  readonly storeChecks: Readonly<Record<string, () => Promise<unknown>>>;
  /**
   * Whether the database has answered and been migrated: the runtime opens without waiting for it and migrates as
   * soon as it answers (retrying with back-off); routes answer 503 and background jobs wait until then.
   */
  readonly readiness: StoreReadiness;
  /**
   * The OpenTelemetry SDK registered for `otelUrl` (`--otel`), or `null` without it (then nothing of the SDK is
   * loaded). `close()` flushes and shuts it down last, after everything that could still emit spans.
   */
  readonly tracing: ServiceTracing | null;
  /** Closes what the runtime opened: the Redis connection, the provider client it created, the store it opened. */
  close(): Promise<void>;
}

/**
 * Opens the runtime of the reference service: resolves the settings, opens the SQL store (`databaseUrl` with a
 * pool of `databasePoolSize`, or the given `store`) and starts migrating it in the background, retried with
 * back-off while the database is down (`readiness`; issue 34 item 19), builds `Payments` (alerts logged and counted), the SQL delivery
 * journal, the intake's receipt guard (SQL; Redis with `redisUrl`; or `overrides.intakeGuard`), the
 * `Idempotency-Key` guard (SQL) and the metrics. With `otelUrl` it first registers the OpenTelemetry SDK
 * (`openServiceTracing`; docs/service.md "OpenTelemetry").
 * Without `providerUrl` and `provider`, but with Payme, Click, Uzum or Telegram configured, the provider refuses every call
 * with `PROVIDER_NOT_CONFIGURED` and `context.checkoutAvailable` is false.
 * @throws {InvalidOption} a bad setting; no `providerUrl`, no `provider` and none of Payme, Click and Uzum.
 * @throws the driver's error when the SQLite file or Redis cannot be opened (anything opened so far is closed
 *   first); a PostgreSQL or MySQL server that is down is waited for instead (`readiness`).
 */
export async function openServiceRuntime(options: ServiceOptions = {}): Promise<ServiceRuntime> {
  const config = resolveServiceConfig(options);
  const checkoutAvailable = Boolean(options.provider) || config.providerUrl !== null;
  if (!checkoutAvailable && !localProviderConfigured(config)) {
    throw new InvalidOption(
      'providerUrl',
      'is required unless Payme, Click, Uzum or Telegram is configured (the base URL of the provider API, e.g. the sandbox)',
    );
  }
  const clock: Clock = options.clock ?? systemClock;
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => {});
  };
  try {
    let tracing: ServiceTracing | null = null;
    if (config.otelUrl !== null) {
      const opened = await openServiceTracing(config.otelUrl);
      closers.push(() => opened.sdk.shutdown());
      tracing = opened;
    }
    let store: SqlStore<unknown>;
    if (options.store) {
      store = options.store;
    } else {
      store = await openServiceStore(
        config.databaseUrl,
        config.databasePoolSize,
        databaseWaitMs(config),
        config.databaseSchema,
        config.databaseTablePrefix,
        config.preparedStatements,
      );
      closers.push(() => store.close());
    }
    let provider: PaymentProvider;
    if (options.provider) {
      provider = options.provider;
    } else if (config.providerUrl === null) {
      provider = noProvider(() => new ServiceError('PROVIDER_NOT_CONFIGURED', 'no --provider-url is configured'));
    } else {
      const client = new SandboxClient({ baseUrl: config.providerUrl ?? '', timeoutMs: config.providerTimeoutMs });
      closers.push(() => client.close());
      provider = client;
    }
    const redactor = createRedactor();
    const logger =
      options.logger ??
      createLogger({
        redaction: redactor,
        level: options.logLevel ?? 'info',
        base: { service: 'payonce-service', pid: process.pid },
        destination: pino.destination({ dest: 2, sync: true }),
      });
    const waitForInFlightMs = config.waitForInFlightMs;
    const nested = serviceNestedClaims(process.env.NODE_ENV);
    const guardOptions = { clock, staleAfterMs: config.receiptStaleAfterMs, waitForInFlightMs, ...nested };
    let receipts: 'sql' | 'redis' | 'custom' = 'sql';
    let intakeGuard: IdempotencyGuard;
    let redisStore: RedisStore | null = null;
    if (options.overrides?.intakeGuard) {
      intakeGuard = options.overrides.intakeGuard;
      receipts = 'custom';
    } else if (config.redisUrl !== null) {
      const { RedisStore: Redis } = await import('payonce/internal/stores/redis/redis-store.js');
      const redis: RedisStore = await Redis.connect(config.redisUrl, {
        prefix: config.redisPrefix,
        timeoutMs: config.storeTimeoutMs,
      });
      closers.push(() => redis.close());
      redisStore = redis;
      intakeGuard = new IdempotencyGuard(redis, guardOptions);
      receipts = 'redis';
    } else {
      intakeGuard = new IdempotencyGuard(store, guardOptions);
    }
    const httpGuard = new IdempotencyGuard(store, {
      clock,
      staleAfterMs: config.idempotencyStaleAfterMs,
      waitForInFlightMs,
      ...nested,
    });
    const metrics = new ServiceMetrics({
      store,
      clock,
      storeTimeoutMs: config.storeTimeoutMs,
      ...(receipts === 'sql' ? { countStuck: boundedStuckCount(store, clock, config.storeTimeoutMs) } : {}),
    });
    metrics.observeGuard(intakeGuard);
    for (const guard of [intakeGuard, httpGuard]) {
      guard.on('receipt:corrupted', ({ key, problem }) =>
        logger.error({ key: key.toString(), problem, code: 'RECEIPT_CORRUPTED' }, 'stored receipt is corrupted'),
      );
    }
    const payments = new Payments(store, {
      provider,
      clock,
      ...nested,
      onAlert: (alert) => {
        metrics.alerts.inc();
        logger.warn({ alert }, 'payment alert');
      },
    });
    const context: ServiceContext = Object.freeze({
      store,
      payments,
      outbox: payments.outbox,
      clock,
      config,
      provider,
      checkoutAvailable,
      fulfilmentsTable: FULFILMENTS_TABLE,
      refundsTable: REFUNDS_TABLE,
      journal: new SqlDeliveryJournal(store, { clock }),
      intakeGuard,
      httpGuard,
      logger,
    });
    const storeChecks: Record<string, () => Promise<unknown>> = { database: () => sql`select 1`.execute(store.db) };
    if (redisStore !== null) {
      const redis = redisStore;
      storeChecks.receipts = () => redis.ping();
    }
    const readiness = new StoreReadiness(() => store.migrate(), logger);
    closers.push(() => readiness.close());
    await readiness.start(databaseWaitMs(config));
    return Object.freeze({
      context,
      metrics,
      receipts,
      storeChecks: Object.freeze(storeChecks),
      readiness,
      tracing,
      close,
    });
  } catch (error) {
    await close();
    throw error;
  }
}
