import type { ServiceOptions } from '@payonce/service/internal/service-options.js';
import { type Command, Option } from 'commander';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { MAX_TIMER_MS } from 'payonce/internal/core/options.js';
import { brokerOf } from 'payonce/internal/relay/broker-url.js';
import { describeTarget, parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';

/** The flags `payonce serve` and `payonce worker` share (docs/service.md "Configuration"). */
export interface RuntimeFlags {
  /** The flag as given; `runtimeOptions` falls back to `PAYONCE_DATABASE_URL`, `DATABASE_URL`, `./payonce.sqlite`. */
  databaseUrl?: string;
  /** Connections of the PostgreSQL / MySQL pool (1–1000); `undefined` = the service's default of 10. */
  databasePoolSize?: number;
  schema?: string;
  tablePrefix?: string;
  redisUrl?: string;
  storeTimeoutMs?: number;
  providerUrl?: string;
  providerTimeoutMs?: number;
  workerPollMs?: number;
  leaseMs?: number;
  reconcileEveryMs?: number;
  reconcileAfterMs?: number;
  fulfilDelayMs?: number;
  receiptStaleAfterMs?: number;
  retryBaseMs?: number;
  reconcilePendingAfterMs?: number;
  webhookToleranceSec?: number;
  idempotencyStaleAfterMs?: number;
  waitForInFlightMs?: number;
  receiptPurgeEveryMs?: number;
  webhookReceiptRetentionMs?: number;
  journalRetentionMs?: number;
  logLevel?: string;
  broker?: string;
  subjectPrefix?: string;
  /** `--otel` / `PAYONCE_OTEL_URL`; `runtimeOptions` falls back to `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  otel?: string;
}

/**
 * A commander argument parser for an integer of milliseconds from `min` to `max`. The default `max` is the longest
 * delay a Node.js timer keeps (`MAX_TIMER_MS`, about 24.8 days): a longer interval or timeout would fire after
 * 1 ms. Ages and retentions, which are never slept on, pass `Number.MAX_SAFE_INTEGER`.
 * @throws {CliUsageError} anything else.
 */
export function millis(flag: string, min = 0, max = MAX_TIMER_MS): (value: string) => number {
  return (value) => {
    const n = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new CliUsageError(`${flag}: "${value}" is not an integer of milliseconds from ${min} to ${max}`);
    }
    return n;
  };
}

function seconds(flag: string): (value: string) => number {
  return (value) => {
    const n = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1)
      throw new CliUsageError(`${flag}: "${value}" is not an integer of seconds >= 1`);
    return n;
  };
}

/** A commander argument parser for an integer in `min`…`max`. @throws {CliUsageError} anything else, naming `flag`. */
export function intIn(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new CliUsageError(`${flag}: "${value}" is not an integer ${min}…${max}`);
    }
    return n;
  };
}

/** A commander argument parser for a TCP port 0–65535. @throws {CliUsageError} anything else. */
export function portOf(value: string): number {
  const n = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n > 65_535) throw new CliUsageError(`--port: "${value}" is not a port 0…65535`);
  return n;
}

/** Adds the database, Redis, provider, timing and log flags to `command`. */
export function addRuntimeOptions(command: Command): Command {
  return command
    .addOption(
      databaseUrlOption(
        'SQLite file path / sqlite:PATH, postgres://… or mysql://… (migrated on start; default ./payonce.sqlite)',
      ),
    )
    .option(
      '--schema <name>',
      'the PostgreSQL schema (MySQL: database) of every payonce table, created on start if missing; not on SQLite',
    )
    .option(
      '--table-prefix <prefix>',
      'what every payonce table name starts with instead of payonce_ (e.g. billing_), for a shared SQLite file or database',
    )
    .option(
      '--database-pool-size <n>',
      'connections of the PostgreSQL / MySQL pool, 1…1000 (default 10; SQLite has one)',
      intIn('--database-pool-size', 1, 1_000),
    )
    .addOption(
      new Option(
        '--redis-url <url>',
        "moves the webhook intake's receipts to Redis (payment receipts stay in SQL)",
      ).env('REDIS_URL'),
    )
    .addOption(
      new Option(
        '--store-timeout-ms <ms>',
        'bound of each wait on a store: a Redis connect or command (503 STORE_UNAVAILABLE after it) and each /healthz store check (default 2000)',
      )
        .env('PAYONCE_STORE_TIMEOUT_MS')
        .argParser(millis('--store-timeout-ms', 1)),
    )
    .addOption(
      new Option('--provider-url <url>', 'base URL of the Stripe-shaped provider API (the sandbox)').env(
        'PAYONCE_PROVIDER_URL',
      ),
    )
    .addOption(
      new Option('--provider-timeout-ms <ms>', 'a create call with no answer by then makes the attempt unknown')
        .env('PAYONCE_PROVIDER_TIMEOUT_MS')
        .argParser(millis('--provider-timeout-ms', 1)),
    )
    .option('--worker-poll-ms <ms>', 'outbox worker sleep when idle (default 1000)', millis('--worker-poll-ms', 1))
    .option(
      '--lease-ms <ms>',
      'lease of a claimed outbox job, not renewed while it runs: keep it above the slowest run (default 30000)',
      millis('--lease-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--reconcile-every-ms <ms>',
      'interval of reconciliation runs (default 10000)',
      millis('--reconcile-every-ms', 1),
    )
    .option(
      '--reconcile-after-ms <ms>',
      'age of unknown attempts to reconcile (default 60000)',
      millis('--reconcile-after-ms', 0, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--fulfil-delay-ms <ms>',
      'simulated warehouse call inside each fulfilment (default 0)',
      millis('--fulfil-delay-ms'),
    )
    .option(
      '--reconcile-pending-after-ms <ms>',
      'age of pending attempts (no webhook came) re-checked with the provider (default 300000)',
      millis('--reconcile-pending-after-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--retry-base-ms <ms>',
      'first retry delay of a failed outbox job, doubled per failure (default 1000)',
      millis('--retry-base-ms', 1),
    )
    .option(
      '--receipt-stale-after-ms <ms>',
      'lease of a webhook receipt claim, renewed while its handler runs: a redelivery takes over a claim whose heartbeat stopped this long (its worker died) (default 30000)',
      millis('--receipt-stale-after-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--idempotency-stale-after-ms <ms>',
      'age of an Idempotency-Key request left in progress (its process died) before a retry takes it over; above --provider-timeout-ms (default 60000)',
      millis('--idempotency-stale-after-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--wait-for-in-flight-ms <ms>',
      'how long a duplicate checkout or webhook that meets the same one still running (any replica) waits for its result before 409 (default 0; at most 30000)',
      millis('--wait-for-in-flight-ms'),
    )
    .option(
      '--receipt-purge-every-ms <ms>',
      'how often finished receipts past their retention are purged (default 3600000)',
      millis('--receipt-purge-every-ms', 1),
    )
    .option(
      '--webhook-receipt-retention-ms <ms>',
      'how long finished webhook receipts are kept to recognise redeliveries (default 604800000, 7 days)',
      millis('--webhook-receipt-retention-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--journal-retention-ms <ms>',
      'how long webhook delivery journal rows are kept (default 2592000000, 30 days)',
      millis('--journal-retention-ms', 1, Number.MAX_SAFE_INTEGER),
    )
    .addOption(
      new Option(
        '--webhook-tolerance-sec <s>',
        'webhook signature tolerance: a signed timestamp further than this from now is refused 401 (default 300)',
      )
        .env('PAYONCE_WEBHOOK_TOLERANCE_SEC')
        .argParser(seconds('--webhook-tolerance-sec')),
    )
    .addOption(
      new Option(
        '--broker <url>',
        'nats://… or amqp://…: publish order.paid / order.fulfilled there through the outbox relay (with the worker)',
      ).env('PAYONCE_BROKER_URL'),
    )
    .addOption(
      new Option(
        '--subject-prefix <prefix>',
        'with --broker: subjects <prefix>.order.paid; stream / exchange named after it',
      )
        .env('PAYONCE_SUBJECT_PREFIX')
        .default('payonce'),
    )
    .addOption(
      new Option(
        '--otel <url>',
        'OTLP/HTTP endpoint (e.g. http://otel-collector:4318): export traces and metrics there through the OpenTelemetry SDK (default: OTEL_EXPORTER_OTLP_ENDPOINT, else none)',
      ).env('PAYONCE_OTEL_URL'),
    )
    .addOption(
      new Option('--log-level <level>', 'pino level of the JSON logs on stderr')
        .env('PAYONCE_LOG_LEVEL')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
}

/**
 * `--otel-trace-url <template>` (env `PAYONCE_OTEL_TRACE_URL`) of `payonce serve` and `payonce console`: the trace
 * viewer's link with `{traceId}` (e.g. `http://jaeger:16686/trace/{traceId}`); the console links each order's trace
 * id with it. Checked by the service (`otelTraceUrl`).
 */
export function otelTraceUrlOption(): Option {
  return new Option(
    '--otel-trace-url <template>',
    "link of a trace in your trace viewer, {traceId} where the id goes (e.g. http://jaeger:16686/trace/{traceId}): the console links each order's trace",
  ).env('PAYONCE_OTEL_TRACE_URL');
}

/**
 * The OTLP/HTTP endpoint of `payonce serve` / `payonce worker`: `--otel`, else `PAYONCE_OTEL_URL` (both through
 * the flag), else the standard `OTEL_EXPORTER_OTLP_ENDPOINT`, else `null` (no SDK). Must be http(s).
 * @throws {CliUsageError} a value that is not an http(s) URL, naming where it came from.
 */
export function otelUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const fromFlag = nonEmpty(flag);
  const value = fromFlag ?? nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (value === undefined) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    const where = fromFlag === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : '--otel (or PAYONCE_OTEL_URL)';
    throw new CliUsageError(
      `${where} "${value}" is not an http(s) URL (an OTLP/HTTP endpoint such as http://localhost:4318)`,
    );
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The `ServiceOptions` of the shared flags, checked: the database URL (`--database-url`, else
 * `PAYONCE_DATABASE_URL`, else `DATABASE_URL`, else `./payonce.sqlite`) must parse and the provider URL, when
 * given, must be http(s); it is required unless `providerOptional` (`payonce serve` with Payme, Click or Uzum).
 * @throws {InvalidDatabaseUrl} a bad `--database-url`. @throws {CliUsageError} no `--provider-url` /
 * `PAYONCE_PROVIDER_URL` when required, or one that is not http(s).
 */
export function runtimeOptions(
  flags: RuntimeFlags,
  env: NodeJS.ProcessEnv,
  providerOptional = false,
): ServiceOptions & { readonly databaseUrl: string } {
  const databaseUrl = databaseUrlOf(flags.databaseUrl, env, './payonce.sqlite');
  parseDatabaseUrl(databaseUrl);
  const providerUrl = nonEmpty(flags.providerUrl) ?? null;
  if (providerUrl === null && !providerOptional) {
    throw new CliUsageError('--provider-url (or PAYONCE_PROVIDER_URL) is required: the base URL of the provider API');
  }
  if (providerUrl !== null) {
    try {
      const url = new URL(providerUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new CliUsageError(`--provider-url "${providerUrl}" is not an http(s) URL`);
    }
  }
  const brokerUrl = nonEmpty(flags.broker) ?? null;
  if (brokerUrl !== null) {
    try {
      brokerOf(brokerUrl);
    } catch (error) {
      throw new CliUsageError(`--broker: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return {
    databaseUrl,
    ...(flags.schema === undefined ? {} : { databaseSchema: flags.schema }),
    ...(flags.tablePrefix === undefined ? {} : { databaseTablePrefix: flags.tablePrefix }),
    databasePoolSize: flags.databasePoolSize,
    redisUrl: nonEmpty(flags.redisUrl) ?? null,
    storeTimeoutMs: flags.storeTimeoutMs,
    providerUrl,
    providerTimeoutMs: flags.providerTimeoutMs,
    workerPollMs: flags.workerPollMs,
    leaseMs: flags.leaseMs,
    reconcileEveryMs: flags.reconcileEveryMs,
    reconcileAfterMs: flags.reconcileAfterMs,
    fulfilDelayMs: flags.fulfilDelayMs,
    receiptStaleAfterMs: flags.receiptStaleAfterMs,
    retryBaseMs: flags.retryBaseMs,
    reconcilePendingAfterMs: flags.reconcilePendingAfterMs,
    webhookToleranceSec: flags.webhookToleranceSec,
    idempotencyStaleAfterMs: flags.idempotencyStaleAfterMs,
    waitForInFlightMs: flags.waitForInFlightMs,
    receiptPurgeEveryMs: flags.receiptPurgeEveryMs,
    webhookReceiptRetentionMs: flags.webhookReceiptRetentionMs,
    journalRetentionMs: flags.journalRetentionMs,
    logLevel: flags.logLevel,
    brokerUrl,
    brokerSubjectPrefix: flags.subjectPrefix,
    otelUrl: otelUrlOf(flags.otel, env),
    stripeWebhookSecrets: nonEmpty(env.STRIPE_WEBHOOK_SECRET) ?? null,
    standardWebhooksSecrets: nonEmpty(env.STANDARD_WEBHOOKS_SECRET) ?? null,
    adminToken: nonEmpty(env.PAYONCE_ADMIN_TOKEN) ?? null,
  };
}

/** Resolves with the name of the first SIGTERM or SIGINT received. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

interface ServeFlags extends RuntimeFlags {
  port: number;
  host: string;
  worker: boolean;
  groupCommit?: boolean;
  preparedStatements?: boolean;
  trustProxy?: string;
  paymeKey?: string;
  paymeAccountField?: string;
  clickServiceId?: number;
  clickSecretKey?: string;
  uzumLogin?: string;
  uzumPassword?: string;
  uzumServiceId?: number;
  telegramBotToken?: string;
  telegramSecretToken?: string;
  telegramApiUrl?: string;
  otelTraceUrl?: string;
}

/**
 * `--click-service-id` + `--click-secret-key` (env `PAYONCE_CLICK_SERVICE_ID`, `PAYONCE_CLICK_SECRET_KEY`) and
 * `--uzum-login` + `--uzum-password` + `--uzum-service-id` (env `PAYONCE_UZUM_LOGIN`, `PAYONCE_UZUM_PASSWORD`,
 * `PAYONCE_UZUM_SERVICE_ID`) of `payonce serve`: they enable `POST /click/prepare|complete` and `POST /uzum/*`
 * (docs/service.md "Payme, Click and Uzum"). All of a provider's flags or none: checked by the service.
 */
export function clickUzumOptions(): Option[] {
  const id = (flag: string) => intIn(flag, 1, Number.MAX_SAFE_INTEGER);
  return [
    new Option(
      '--click-service-id <id>',
      'Click service_id: with --click-secret-key enables POST /click/prepare, /click/complete',
    )
      .env('PAYONCE_CLICK_SERVICE_ID')
      .argParser(id('--click-service-id')),
    new Option(
      '--click-secret-key <key>',
      'SECRET_KEY of the Click service (comma-separated during a rotation); prefer the environment variable',
    ).env('PAYONCE_CLICK_SECRET_KEY'),
    new Option(
      '--uzum-login <login>',
      'Uzum Bank Basic-auth login: with --uzum-password and --uzum-service-id enables POST /uzum/*',
    ).env('PAYONCE_UZUM_LOGIN'),
    new Option('--uzum-password <password>', 'Uzum Bank Basic-auth password; prefer the environment variable').env(
      'PAYONCE_UZUM_PASSWORD',
    ),
    new Option('--uzum-service-id <id>', 'service id Uzum Bank issued')
      .env('PAYONCE_UZUM_SERVICE_ID')
      .argParser(id('--uzum-service-id')),
  ];
}

/**
 * `--telegram-bot-token` + `--telegram-secret-token` (env `PAYONCE_TELEGRAM_BOT_TOKEN`,
 * `PAYONCE_TELEGRAM_SECRET_TOKEN`) and `--telegram-api-url` of `payonce serve`: they enable `POST /telegram/webhook`
 * and the Telegram Stars routes of `XTR` orders (docs/service.md "Telegram"). The token is never printed or logged.
 */
export function telegramOptions(): Option[] {
  return [
    new Option(
      '--telegram-bot-token <token>',
      'Telegram bot token: with --telegram-secret-token enables POST /telegram/webhook; prefer the environment variable',
    ).env('PAYONCE_TELEGRAM_BOT_TOKEN'),
    new Option(
      '--telegram-secret-token <token>',
      'the secret_token given to setWebhook (comma-separated during a rotation); prefer the environment variable',
    ).env('PAYONCE_TELEGRAM_SECRET_TOKEN'),
    new Option(
      '--telegram-api-url <url>',
      'Bot API base URL (the Telegram sandbox; default https://api.telegram.org)',
    ).env('PAYONCE_TELEGRAM_API_URL'),
  ];
}

/** Whether `payonce serve` was given any Payme, Click, Uzum or Telegram credential (then `--provider-url` is optional). */
function localProviderFlags(flags: ServeFlags): boolean {
  const texts = [
    flags.paymeKey,
    flags.clickSecretKey,
    flags.uzumLogin,
    flags.uzumPassword,
    flags.telegramBotToken,
    flags.telegramSecretToken,
  ];
  return (
    texts.some((text) => nonEmpty(text) !== undefined) ||
    flags.clickServiceId !== undefined ||
    flags.uzumServiceId !== undefined
  );
}

/**
 * Refuses a half-configured Click or Uzum of `payonce serve` by its flags (the service refuses it too, but in its
 * options' names): Click needs `--click-service-id` and `--click-secret-key`; Uzum `--uzum-login`,
 * `--uzum-password` and `--uzum-service-id`.
 * @throws {CliUsageError} some but not all of a provider's flags.
 */
export function checkProviderFlags(flags: ServeFlags): void {
  const groups: readonly [string, readonly [string, unknown][]][] = [
    [
      'Click',
      [
        ['--click-service-id', flags.clickServiceId],
        ['--click-secret-key', nonEmpty(flags.clickSecretKey)],
      ],
    ],
    [
      'Uzum',
      [
        ['--uzum-login', nonEmpty(flags.uzumLogin)],
        ['--uzum-password', nonEmpty(flags.uzumPassword)],
        ['--uzum-service-id', flags.uzumServiceId],
      ],
    ],
    [
      'Telegram',
      [
        ['--telegram-bot-token', nonEmpty(flags.telegramBotToken)],
        ['--telegram-secret-token', nonEmpty(flags.telegramSecretToken)],
      ],
    ],
  ];
  for (const [provider, parts] of groups) {
    const missing = parts.filter(([, value]) => value === undefined).map(([flag]) => flag);
    if (missing.length > 0 && missing.length < parts.length) {
      throw new CliUsageError(
        `${provider} needs all of ${parts.map(([flag]) => flag).join(', ')} (or their PAYONCE_* environment variables); missing: ${missing.join(', ')}`,
      );
    }
  }
}

/**
 * `--payme-key <key>` (env `PAYONCE_PAYME_KEY`) and `--payme-account-field <name>` (env
 * `PAYONCE_PAYME_ACCOUNT_FIELD`) of `payonce serve`: the Payme cashbox key(s) that enable `POST /payme`, and the
 * `account` field carrying the order id (docs/service.md "Payme"). Checked by the service.
 */
export function paymeOptions(): Option[] {
  return [
    new Option(
      '--payme-key <key>',
      'Payme cashbox key(s), comma-separated: enables POST /payme (the Payme Merchant API); prefer the environment variable',
    ).env('PAYONCE_PAYME_KEY'),
    new Option('--payme-account-field <name>', 'the Payme account field carrying the order id (default order_id)').env(
      'PAYONCE_PAYME_ACCOUNT_FIELD',
    ),
  ];
}

/**
 * `--trust-proxy <list>` (env `PAYONCE_TRUST_PROXY`) of `payonce serve` and `payonce console`: the proxies whose
 * `X-Forwarded-*` headers count (docs/console.md "Behind a TLS proxy"). Checked by the service (`trustProxy`).
 */
export function trustProxyOption(): Option {
  return new Option(
    '--trust-proxy <list>',
    'addresses / CIDR ranges / loopback,linklocal,uniquelocal of the TLS proxy in front: their X-Forwarded-Proto and -For count (default: none)',
  ).env('PAYONCE_TRUST_PROXY');
}

/**
 * Registers `serve` on the `payonce` program: starts the reference service (docs/service.md) with the flags and
 * environment of its "Configuration" table, prints `payonce service listening on http://…` on stdout once it
 * listens, and stays up until SIGTERM or SIGINT, then closes gracefully (requests in flight, worker,
 * reconciliation, database) and exits 0. `--provider-url` may be left out when Payme, Click, Uzum or Telegram credentials are
 * given (checkout then answers 409 `PROVIDER_NOT_CONFIGURED`). A bad flag, neither a provider URL nor any such
 * credential, or only some of Click's or Uzum's flags, exits 2 with the reason; a
 * SQLite file, Redis or port that cannot be opened exits 1 with the driver's message. A PostgreSQL or MySQL
 * server that is down at start is waited for: the service listens, answers 503 + `Retry-After` and reports
 * `starting` on `/healthz` until the database answers, then migrates it and starts the worker.
 * @see `createService`.
 */
export function registerServe(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description(
      'run the reference payment service: orders, checkout, webhooks, outbox worker, reconciliation, metrics (needs @payonce/service)',
    );
  addRuntimeOptions(command)
    .addOption(
      new Option('--port <port>', 'listening port (0 picks one; the URL is printed)')
        .env('PORT')
        .default(3000)
        .argParser(portOf),
    )
    .addOption(new Option('--host <host>', 'listening address').env('HOST').default('127.0.0.1'))
    .option('--no-worker', 'do not run the outbox worker and reconciliation here (run payonce worker)')
    .option(
      '--group-commit',
      'Stripe-shaped webhooks one-commit, concurrent deliveries sharing one commit (SQL store; docs/design.md §11)',
    )
    .option(
      '--prepared-statements',
      'PostgreSQL: statements parsed and planned once per connection (not behind PgBouncer in transaction mode before 1.21)',
    )
    .addOption(trustProxyOption())
    .addOption(otelTraceUrlOption());
  for (const option of [...paymeOptions(), ...clickUzumOptions(), ...telegramOptions()]) command.addOption(option);
  command.action(async (flags: ServeFlags) => {
    // The database URL is checked first (its error is the more specific one), then that some provider is set.
    const options = runtimeOptions(flags, process.env, true);
    if (nonEmpty(flags.providerUrl) === undefined && !localProviderFlags(flags)) {
      throw new CliUsageError(
        'payonce serve needs --provider-url (or PAYONCE_PROVIDER_URL), or Payme, Click, Uzum or Telegram credentials: --payme-key, --click-service-id + --click-secret-key, --uzum-login + --uzum-password + --uzum-service-id, or --telegram-bot-token + --telegram-secret-token',
      );
    }
    checkProviderFlags(flags);
    const signal = untilSignal();
    // Imported here so that commands which never serve (migrate, storm, replay) do not load fastify.
    const { createService } = await importWithPeers(
      'payonce serve',
      () => import('@payonce/service/internal/create-service.js'),
    );
    const service = await createService({
      ...options,
      port: flags.port,
      host: flags.host,
      worker: flags.worker,
      groupCommit: flags.groupCommit === true,
      preparedStatements: flags.preparedStatements === true,
      trustProxy: nonEmpty(flags.trustProxy) ?? null,
      paymeKeys: nonEmpty(flags.paymeKey) ?? null,
      ...(nonEmpty(flags.paymeAccountField) === undefined ? {} : { paymeAccountField: flags.paymeAccountField }),
      clickServiceId: flags.clickServiceId ?? null,
      clickSecretKey: nonEmpty(flags.clickSecretKey) ?? null,
      uzumLogin: nonEmpty(flags.uzumLogin) ?? null,
      uzumPassword: nonEmpty(flags.uzumPassword) ?? null,
      uzumServiceId: flags.uzumServiceId ?? null,
      telegramBotToken: nonEmpty(flags.telegramBotToken) ?? null,
      telegramSecretToken: nonEmpty(flags.telegramSecretToken) ?? null,
      telegramApiUrl: nonEmpty(flags.telegramApiUrl) ?? null,
      otelTraceUrl: nonEmpty(flags.otelTraceUrl) ?? null,
    });
    io.out(`payonce service listening on ${service.url}`);
    io.out(
      `database ${describeTarget(parseDatabaseUrl(options.databaseUrl))}; webhooks: ${
        service.context.config.stripeWebhookSecrets.length > 0 ? '/webhooks/stripe ' : ''
      }${service.context.config.standardWebhooksSecrets.length > 0 ? '/webhooks/standard-webhooks' : ''}`.trimEnd(),
    );
    const { config } = service.context;
    if (config.paymeKeys.length > 0) io.out('payme: POST /payme');
    if (config.click !== null) io.out('click: POST /click/prepare, POST /click/complete');
    if (config.uzum !== null)
      io.out('uzum: POST /uzum/check, /uzum/create, /uzum/confirm, /uzum/reverse, /uzum/status');
    if (config.telegram !== null) {
      // The bot id only: the token is never printed.
      io.out(`telegram: bot ${config.telegram.botId}, POST /telegram/webhook (XTR orders paid with Stars)`);
    }
    if (!service.context.checkoutAvailable) io.out('no --provider-url: checkout answers 409 PROVIDER_NOT_CONFIGURED');
    if (config.otelUrl !== null) io.out(`otel: OTLP/HTTP to ${config.otelUrl} (traces and metrics)`);
    const received = await signal;
    io.out(`payonce service: ${received}, closing`);
    await service.close();
  });
}
