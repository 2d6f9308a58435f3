import { InvalidOption } from 'payonce/internal/core/errors.js';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { checkSchema } from 'payonce/internal/stores/sql/table-namespace.js';
import { checkTablePrefix } from 'payonce/internal/stores/sql/table-prefix.js';
import { checkAdminTokenStrength } from './admin-token-strength.js';
import {
  type LocalProviderConfig,
  type LocalProviderSettings,
  resolveLocalProviders,
} from './local-provider-config.js';
import { trustedProxiesOf } from './trusted-proxies.js';

/**
 * Settings of the reference service, as `payonce serve` reads them from flags and the environment
 * (docs/service.md "Configuration"). Every duration is in milliseconds.
 */
export interface ServiceSettings extends LocalProviderSettings {
  /**
   * SQLite file path / `sqlite:PATH` / `file:///PATH`, `postgres://…` or `mysql://…`; migrated on start.
   * Ignored when a `store` is given to `createService`. @default './payonce.sqlite'
   */
  databaseUrl?: string;
  /**
   * The PostgreSQL schema (MySQL/MariaDB: database) of every payonce and service table, created on start if missing
   * and qualified in every statement (`SqlStoreOptions.schema`); not on SQLite. Ignored when a `store` is given
   * (that store's own `schema` applies). @default none: the connection's search_path / database
   */
  databaseSchema?: string;
  /**
   * What every payonce and service table name starts with instead of `payonce_` (`SqlStoreOptions.tablePrefix`):
   * `billing_` → `billing_receipts`, `billing_orders`, …; migrated under it on start. For a SQLite file or a MySQL
   * database payonce shares. Ignored when a `store` is given (that store's own `tablePrefix` applies).
   * @default 'payonce_'
   */
  databaseTablePrefix?: string;
  /**
   * Most connections the service's PostgreSQL or MySQL pool opens (SQLite: ignored). A webhook delivery takes a
   * connection four times (claim, business transaction, completion, journal row) and a checkout five; with more
   * concurrent requests than connections they queue for one. Raise it only when the database has spare CPU: on a
   * saturated 2-core machine 64 connections were slower than 10 (packages/bench/notes/service.md). Mind the server's
   * `max_connections` across replicas. Ignored when a `store` is given. 1–1000. @default 10 (the drivers' default)
   */
  databasePoolSize?: number;
  /** Moves the webhook intake's receipts to Redis (payment receipts stay in SQL). @default null (SQL) */
  redisUrl?: string | null;
  /** Key prefix of the intake's receipts in Redis (no `{` or `}`). @default 'payonce:' */
  redisPrefix?: string;
  /**
   * Bound of each wait on a store, ms: a Redis connect or command (a down Redis answers 503 `STORE_UNAVAILABLE`
   * within it, never after growing reconnect back-offs) and each store check of `GET /healthz`. @default 2_000
   */
  storeTimeoutMs?: number;
  /** Listening address. @default '127.0.0.1' */
  host?: string;
  /** Listening port; 0 picks a free one (read `PaymentService.url`). @default 3000 */
  port?: number;
  /**
   * The reverse proxies (TLS terminators, load balancers) in front of the service: addresses, CIDR ranges or
   * `loopback`/`linklocal`/`uniquelocal`, comma-separated or listed. A request from one of them is taken at its
   * `X-Forwarded-Proto` (the console cookie is `Secure` when it says `https`) and `X-Forwarded-For` (the client
   * address the admin token throttle counts). `trustedProxiesOf`. @default null (none trusted)
   */
  trustProxy?: string | readonly string[] | null;
  /**
   * Base URL of the Stripe-shaped provider API (the sandbox). Required unless `provider` is given or Payme, Click
   * or Uzum is configured; without it checkout and the Stripe-shaped webhooks answer 409 `PROVIDER_NOT_CONFIGURED`.
   */
  providerUrl?: string | null;
  /** A provider create call with no answer by then makes the attempt `unknown`. @default 5_000 */
  providerTimeoutMs?: number;
  /**
   * Longest time (ms) a client may take to send one whole request (headers and body); a slower one gets 408
   * `REQUEST_TIMEOUT` and its connection is closed, so slow or stalled senders cannot hold connections open
   * (slow-loris). @default 30_000
   */
  requestTimeoutMs?: number;
  /** Secret(s) of `POST /webhooks/stripe`; without them the endpoint answers 404. @default none */
  stripeWebhookSecrets?: string | readonly string[] | null;
  /** Secret(s) of `POST /webhooks/standard-webhooks` (`whsec_` + base64); without them it answers 404. */
  standardWebhooksSecrets?: string | readonly string[] | null;
  /**
   * Key(s) of the Payme cashbox (`Basic base64("Paycom:" + key)`); with one, `POST /payme` serves the Payme Merchant
   * API on the service's orders (docs/service.md "Payme"). Comma-separated or listed; stored in `payonce_payme_keys`
   * on the first start only, after which a `ChangePassword` key wins. @default none (no `/payme` route)
   */
  paymeKeys?: string | readonly string[] | null;
  /** The `account` field of the Payme cashbox that carries the order id (1–64 characters). @default 'order_id' */
  paymeAccountField?: string;
  /**
   * Enables the operator console (`/admin/api/*`, `/console`) for `Authorization: Bearer <token>` and console logins;
   * without it admin routes answer 404. At least 32 visible ASCII characters, not predictable
   * (`checkAdminTokenStrength`). @default null
   */
  adminToken?: string | null;
  /** Run the outbox worker and the reconciliation job in this process. @default true */
  worker?: boolean;
  /**
   * Group commit for the Stripe-shaped webhooks (`payonce serve --group-commit`): when the intake's receipts are in
   * the service's SQL store, each delivery is one-commit (intake receipt, payment receipt, transition, outbox job and
   * journal row in one transaction) and concurrent deliveries share one transaction and commit, a savepoint each
   * (docs/design.md §11 "Group commit"). Off by default: it holds row locks until the batch commits, and on this
   * project's measurements it has not yet paid for that (packages/bench/notes/path.md). @default false
   */
  groupCommit?: boolean;
  /**
   * PostgreSQL: send statements as named prepared statements, parsed and planned once per connection
   * (`payonce serve --prepared-statements`; `PostgresConnectOptions.preparedStatements`). Off by default: a pooler
   * in transaction mode (PgBouncer before 1.21) cannot carry them. Ignored on SQLite and MySQL/MariaDB. @default false
   */
  preparedStatements?: boolean;
  /** Sleep of the outbox worker when no job is claimable. @default 1_000 */
  workerPollMs?: number;
  /**
   * Outbox jobs the worker runs at once (`OutboxWorkerOptions.concurrency`; `payonce worker --concurrency`), 1–1000;
   * keep it within `databasePoolSize`. @default 4
   */
  workerConcurrency?: number;
  /** Lease of a claimed outbox job; keep it above `fulfilDelayMs` plus the effect's own time. @default 30_000 */
  leaseMs?: number;
  /** First retry delay of a failed job (doubles per failure, jittered). @default 1_000 */
  retryBaseMs?: number;
  /** Interval between reconciliation runs. @default 10_000 */
  reconcileEveryMs?: number;
  /** Attempts in `creating`/`unknown` not updated for this long are asked about. @default 60_000 */
  reconcileAfterMs?: number;
  /**
   * Attempts left `pending`/`requires_action` this long (their webhooks never came) are re-checked with the
   * provider, at most once per this period each. @default 300_000 (5 min)
   */
  reconcilePendingAfterMs?: number;
  /** The simulated warehouse call inside each fulfilment, outside any transaction. @default 0 */
  fulfilDelayMs?: number;
  /**
   * Lease of a webhook receipt's claim, ms (the intake guard's `leaseMs`): renewed every third of it while the handler
   * runs, so a claim whose replica died is taken over once its heartbeat has stopped this long (docs/design.md §3
   * "Leases and heartbeats"). @default 30_000
   */
  receiptStaleAfterMs?: number;
  /**
   * Webhook signature tolerance in SECONDS: a delivery whose signed timestamp is further than this from the
   * service clock, either way, is refused 400 (Stripe `t=`, Standard Webhooks `webhook-timestamp`; the rejection
   * status both providers' docs answer, docs/webhooks.md). docs/design.md §5.
   * @default 300
   */
  webhookToleranceSec?: number;
  /**
   * Lease of an `Idempotency-Key` claim, ms (the HTTP guard's `leaseMs`): renewed every third of it while the checkout
   * runs, so once the process serving it died (e.g. killed mid-checkout) and its heartbeat stopped this long, a
   * customer's retry with the same key takes it over and is answered, instead of 409. Must exceed
   * `providerTimeoutMs`. @default 60_000
   */
  idempotencyStaleAfterMs?: number;
  /**
   * How long (ms) a duplicate checkout (`Idempotency-Key`) or webhook redelivery that meets the same request still
   * running on any replica waits for it before the 409 + `Retry-After`; finished in time, it is answered with the
   * first result. Woken by the database (PostgreSQL LISTEN/NOTIFY, Redis pub/sub) or polled (MySQL, SQLite).
   * At most 30 000. @default 0 (answer 409 at once)
   */
  waitForInFlightMs?: number;
  /**
   * Interval of the background receipt purge (finished `Idempotency-Key` receipts past their 24 h expiry, finished
   * webhook receipts past `webhookReceiptRetentionMs`). @default 3_600_000 (1 h)
   */
  receiptPurgeEveryMs?: number;
  /**
   * Age after which a finished webhook receipt is purged; keep it above the providers' redelivery window (Stripe
   * retries for up to 3 days). @default 604_800_000 (7 days)
   */
  webhookReceiptRetentionMs?: number;
  /**
   * Age after which a webhook delivery journal row is purged by the same background run (issue #34 item 7: the
   * journal no longer grows without bound). @default 2_592_000_000 (30 days)
   */
  journalRetentionMs?: number;
  /**
   * `nats://…` or `amqp://…`: the outbox worker also writes `order.paid` / `order.fulfilled` events and an
   * `OutboxRelay` in the worker's process publishes them there (docs/relay.md). @default null (no events)
   */
  brokerUrl?: string | null;
  /**
   * Subjects / routing keys of those events are `<prefix>.order.paid`; the JetStream stream is the prefix
   * upper-cased (`.` → `_`), the RabbitMQ exchange the prefix. @default 'payonce'
   */
  brokerSubjectPrefix?: string;
  /**
   * The OTLP/HTTP endpoint (e.g. `http://otel-collector:4318`): with it the service registers the OpenTelemetry SDK
   * (`startOtelSdk`) and exports its HTTP server spans, the library's spans and the metrics to `<url>/v1/traces`
   * and `<url>/v1/metrics` (docs/service.md "OpenTelemetry"). @default null (no SDK registered or loaded)
   */
  otelUrl?: string | null;
  /**
   * The trace viewer's link of a trace, with `{traceId}` where the id goes, e.g.
   * `http://jaeger:16686/trace/{traceId}`: the console then links each order's trace id. @default null (plain text)
   */
  otelTraceUrl?: string | null;
}

/** {@link ServiceSettings} checked, with every default applied (`click`, `uzum`: `null` when not enabled). */
export interface ServiceConfig extends LocalProviderConfig {
  readonly databaseUrl: string;
  readonly databaseSchema: string | null;
  readonly databaseTablePrefix: string;
  readonly databasePoolSize: number;
  readonly redisUrl: string | null;
  readonly redisPrefix: string;
  readonly storeTimeoutMs: number;
  readonly host: string;
  readonly port: number;
  /** Trusted proxies (fastify `trustProxy`), `null` for none. */
  readonly trustProxy: readonly string[] | null;
  readonly providerUrl: string | null;
  readonly providerTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly stripeWebhookSecrets: readonly string[];
  readonly standardWebhooksSecrets: readonly string[];
  readonly paymeKeys: readonly string[];
  readonly paymeAccountField: string;
  readonly adminToken: string | null;
  readonly worker: boolean;
  readonly groupCommit: boolean;
  readonly preparedStatements: boolean;
  readonly workerPollMs: number;
  readonly workerConcurrency: number;
  readonly leaseMs: number;
  readonly retryBaseMs: number;
  readonly reconcileEveryMs: number;
  readonly reconcileAfterMs: number;
  readonly reconcilePendingAfterMs: number;
  readonly fulfilDelayMs: number;
  readonly receiptStaleAfterMs: number;
  readonly webhookToleranceSec: number;
  readonly idempotencyStaleAfterMs: number;
  readonly waitForInFlightMs: number;
  readonly receiptPurgeEveryMs: number;
  readonly webhookReceiptRetentionMs: number;
  readonly journalRetentionMs: number;
  readonly brokerUrl: string | null;
  readonly brokerSubjectPrefix: string;
  readonly otelUrl: string | null;
  readonly otelTraceUrl: string | null;
}

function int(value: unknown, name: string, min: number, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new InvalidOption(name, `must be an integer >= ${min}, got ${String(v)}`);
  }
  return v;
}

function atMost(value: number, max: number, name: string): number {
  if (value > max) throw new InvalidOption(name, `must be at most ${max}, got ${value}`);
  return value;
}

/** Comma-separated or listed secrets; blanks dropped. */
function secrets(value: string | readonly string[] | null | undefined): readonly string[] {
  if (value === null || value === undefined) return Object.freeze([]);
  const list = typeof value === 'string' ? value.split(',') : [...value];
  return Object.freeze(list.map((s) => String(s).trim()).filter((s) => s !== ''));
}

function optionalText(value: string | null | undefined, name: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new InvalidOption(name, 'must be a string');
  return value;
}

/** `value` when it is an http(s) URL (after `{traceId}` is filled in), else an InvalidOption naming `name`. */
function httpUrlOf(value: string | null | undefined, name: string, placeholder: string | null): string | null {
  const text = optionalText(value, name);
  if (text === null) return null;
  if (placeholder !== null && !text.includes(placeholder)) {
    throw new InvalidOption(name, `must contain ${placeholder} where the id goes`);
  }
  let url: URL;
  try {
    url = new URL(placeholder === null ? text : text.replaceAll(placeholder, '0'));
  } catch {
    throw new InvalidOption(name, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidOption(name, 'must be http(s)');
  return text;
}

function accountFieldOf(value: unknown): string {
  const field = value ?? 'order_id';
  if (typeof field !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(field)) {
    throw new InvalidOption('paymeAccountField', 'must be 1-64 letters, digits, "_", "." or "-"');
  }
  return field;
}

function adminTokenOf(value: string | null | undefined): string | null {
  const token = optionalText(value, 'adminToken');
  if (token !== null) checkAdminTokenStrength(token);
  return token;
}

/**
 * Applies the defaults of docs/service.md and checks every setting once.
 * @throws {InvalidOption} a duration or port that is not a non-negative integer (port 0–65535, poll, lease,
 *   reconcile interval, provider timeout and stale times at least 1 ms, webhook tolerance at least 1 s), a
 *   `databasePoolSize` outside 1–1000, an
 *   `idempotencyStaleAfterMs` not above `providerTimeoutMs`, a `providerUrl` that is not http(s), an empty
 *   `databaseUrl`, a `redisPrefix` with `{`/`}`, a `paymeAccountField` that is not 1–64 of `A–Z a–z 0–9 _ . -`, a `trustProxy` entry that is not an address or range, an `otelUrl` that is not http(s), an
 *   `otelTraceUrl` that is not http(s) or lacks `{traceId}`, a short or predictable `adminToken` (`checkAdminTokenStrength`),
 *   a half-configured Click or Uzum (`resolveLocalProviders`).
 */
export function resolveServiceConfig(settings: ServiceSettings = {}): ServiceConfig {
  const port = int(settings.port, 'port', 0, 3000);
  if (port > 65_535) throw new InvalidOption('port', 'must be 0…65535');
  const providerUrl = optionalText(settings.providerUrl, 'providerUrl');
  if (providerUrl !== null) {
    let url: URL;
    try {
      url = new URL(providerUrl);
    } catch {
      throw new InvalidOption('providerUrl', 'is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InvalidOption('providerUrl', 'must be http(s)');
  }
  const databaseUrl = settings.databaseUrl ?? './payonce.sqlite';
  if (typeof databaseUrl !== 'string' || databaseUrl.trim() === '') {
    throw new InvalidOption('databaseUrl', 'must be a non-empty string');
  }
  const redisPrefix = settings.redisPrefix ?? 'payonce:';
  if (typeof redisPrefix !== 'string' || /[{}]/.test(redisPrefix)) {
    throw new InvalidOption('redisPrefix', 'must be a string without { or }');
  }
  const host = settings.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw new InvalidOption('host', 'must be a non-empty string');
  const providerTimeoutMs = int(settings.providerTimeoutMs, 'providerTimeoutMs', 1, 5_000);
  const idempotencyStaleAfterMs = int(settings.idempotencyStaleAfterMs, 'idempotencyStaleAfterMs', 1, 60_000);
  if (idempotencyStaleAfterMs <= providerTimeoutMs) {
    throw new InvalidOption(
      'idempotencyStaleAfterMs',
      `must exceed providerTimeoutMs (${providerTimeoutMs}): a checkout still waiting for the provider would be taken over`,
    );
  }
  return Object.freeze({
    databaseUrl,
    databaseSchema: checkSchema(settings.databaseSchema, parseDatabaseUrl(databaseUrl).dialect),
    databaseTablePrefix: checkTablePrefix(settings.databaseTablePrefix),
    databasePoolSize: atMost(int(settings.databasePoolSize, 'databasePoolSize', 1, 10), 1_000, 'databasePoolSize'),
    redisUrl: optionalText(settings.redisUrl, 'redisUrl'),
    redisPrefix,
    storeTimeoutMs: int(settings.storeTimeoutMs, 'storeTimeoutMs', 1, 2_000),
    host,
    port,
    trustProxy: trustedProxiesOf(settings.trustProxy),
    providerUrl,
    providerTimeoutMs,
    requestTimeoutMs: int(settings.requestTimeoutMs, 'requestTimeoutMs', 1, 30_000),
    stripeWebhookSecrets: secrets(settings.stripeWebhookSecrets),
    standardWebhooksSecrets: secrets(settings.standardWebhooksSecrets),
    paymeKeys: secrets(settings.paymeKeys),
    paymeAccountField: accountFieldOf(settings.paymeAccountField),
    ...resolveLocalProviders(settings),
    adminToken: adminTokenOf(settings.adminToken),
    worker: settings.worker ?? true,
    groupCommit: settings.groupCommit ?? false,
    preparedStatements: settings.preparedStatements ?? false,
    workerPollMs: int(settings.workerPollMs, 'workerPollMs', 1, 1_000),
    workerConcurrency: atMost(int(settings.workerConcurrency, 'workerConcurrency', 1, 4), 1_000, 'workerConcurrency'),
    leaseMs: int(settings.leaseMs, 'leaseMs', 1, 30_000),
    retryBaseMs: int(settings.retryBaseMs, 'retryBaseMs', 1, 1_000),
    reconcileEveryMs: int(settings.reconcileEveryMs, 'reconcileEveryMs', 1, 10_000),
    reconcileAfterMs: int(settings.reconcileAfterMs, 'reconcileAfterMs', 0, 60_000),
    reconcilePendingAfterMs: int(settings.reconcilePendingAfterMs, 'reconcilePendingAfterMs', 1, 300_000),
    fulfilDelayMs: int(settings.fulfilDelayMs, 'fulfilDelayMs', 0, 0),
    receiptStaleAfterMs: int(settings.receiptStaleAfterMs, 'receiptStaleAfterMs', 1, 30_000),
    webhookToleranceSec: int(settings.webhookToleranceSec, 'webhookToleranceSec', 1, 300),
    idempotencyStaleAfterMs,
    waitForInFlightMs: atMost(int(settings.waitForInFlightMs, 'waitForInFlightMs', 0, 0), 30_000, 'waitForInFlightMs'),
    receiptPurgeEveryMs: int(settings.receiptPurgeEveryMs, 'receiptPurgeEveryMs', 1, 3_600_000),
    webhookReceiptRetentionMs: int(settings.webhookReceiptRetentionMs, 'webhookReceiptRetentionMs', 1, 604_800_000),
    journalRetentionMs: int(settings.journalRetentionMs, 'journalRetentionMs', 1, 2_592_000_000),
    brokerUrl: optionalText(settings.brokerUrl, 'brokerUrl'),
    brokerSubjectPrefix: optionalText(settings.brokerSubjectPrefix, 'brokerSubjectPrefix') ?? 'payonce',
    otelUrl: httpUrlOf(settings.otelUrl, 'otelUrl', null),
    otelTraceUrl: httpUrlOf(settings.otelTraceUrl, 'otelTraceUrl', '{traceId}'),
  });
}
