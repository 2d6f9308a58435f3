import { fileURLToPath } from 'node:url';
import type { DemoServiceTimings } from './demo-service-timings.js';

/** What the demo knows before it starts `payonce serve`. */
export interface ServiceLaunchInput {
  /** Port on 127.0.0.1 the service listens on (kept across restarts). */
  readonly port: number;
  /** `--database-url` of docs/service.md: SQLite path, `postgres://…` or `mysql://…`. */
  readonly databaseUrl: string;
  /** Base URL of the sandbox provider. */
  readonly providerUrl: string;
  /** `STRIPE_WEBHOOK_SECRET` (the sandbox's Stripe signing secret, `whsec_…`). */
  readonly stripeWebhookSecret: string;
  /** `STANDARD_WEBHOOKS_SECRET` (`whsec_` + base64). */
  readonly standardWebhooksSecret: string;
  /** `PAYONCE_ADMIN_TOKEN`: enables `/admin/*` for `Authorization: Bearer <token>`. */
  readonly adminToken: string;
  /**
   * `PAYONCE_PAYME_KEY`: the cashbox key that enables `POST /payme` (the Payme storm's endpoint).
   * @default none (no `/payme` route, whatever the parent's environment says)
   */
  readonly paymeKey?: string;
  /**
   * `PAYONCE_CLICK_SERVICE_ID` / `PAYONCE_CLICK_SECRET_KEY`: enable `POST /click/prepare|complete` (the Click storm's
   * endpoints). @default none
   */
  readonly click?: { readonly serviceId: number; readonly secretKey: string };
  /**
   * `PAYONCE_UZUM_LOGIN` / `PAYONCE_UZUM_PASSWORD` / `PAYONCE_UZUM_SERVICE_ID`: enable `POST /uzum/*` (the Uzum
   * storm's endpoints). @default none
   */
  readonly uzum?: { readonly login: string; readonly password: string; readonly serviceId: number };
  /**
   * `PAYONCE_TELEGRAM_BOT_TOKEN` / `PAYONCE_TELEGRAM_SECRET_TOKEN` / `PAYONCE_TELEGRAM_API_URL`: enable
   * `POST /telegram/webhook` with the Bot API at `apiUrl` (where the Telegram storm's sandbox listens). @default none
   */
  readonly telegram?: { readonly botToken: string; readonly secretToken: string; readonly apiUrl: string };
  readonly timings: DemoServiceTimings;
  /** The environment the child inherits before the demo's own variables. @default process.env */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

/** How to run the service child: the script, its arguments and environment, and where it answers. */
export interface ServiceLaunch {
  readonly script: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `<url>/healthz`. */
  readonly healthUrl: string;
}

/** Variables of docs/service.md that the demo sets itself or leaves unset, whatever the parent's environment says. */
const SERVICE_VARIABLES = [
  'PAYONCE_DATABASE_URL',
  'DATABASE_URL',
  'REDIS_URL',
  'PORT',
  'HOST',
  'PAYONCE_PROVIDER_URL',
  'PAYONCE_PROVIDER_TIMEOUT_MS',
  'STRIPE_WEBHOOK_SECRET',
  'STANDARD_WEBHOOKS_SECRET',
  'PAYONCE_ADMIN_TOKEN',
  'PAYONCE_PAYME_KEY',
  'PAYONCE_PAYME_ACCOUNT_FIELD',
  'PAYONCE_CLICK_SERVICE_ID',
  'PAYONCE_CLICK_SECRET_KEY',
  'PAYONCE_UZUM_LOGIN',
  'PAYONCE_UZUM_PASSWORD',
  'PAYONCE_UZUM_SERVICE_ID',
  'PAYONCE_TELEGRAM_BOT_TOKEN',
  'PAYONCE_TELEGRAM_SECRET_TOKEN',
  'PAYONCE_TELEGRAM_API_URL',
] as const;

/**
 * This package's own `bin/payonce-cli.js` (the command line over the built `dist/`), resolved from this module's
 * URL (`src/demo/` or `dist/demo/` are both two levels below the package root), never from the working directory.
 */
export function payonceBin(): string {
  return fileURLToPath(new URL('../../bin/payonce-cli.js', import.meta.url));
}

/**
 * The `payonce serve` child of the demo: port, host and timings as flags; the database URL (which may hold a
 * password), provider URL, webhook secrets, admin token, Payme cashbox key and Click / Uzum / Telegram credentials in its environment only, so they never
 * show in a process list. `REDIS_URL` from the parent is not passed on (receipts stay in the demo's database), nor
 * `PAYONCE_PAYME_KEY` / `PAYONCE_PAYME_ACCOUNT_FIELD` (the key is `paymeKey`, the account field `order_id`) or the
 * parent's Click, Uzum and Telegram variables (they are `click`, `uzum` and `telegram`). The child logs
 * at `warn` unless `PAYONCE_LOG_LEVEL` says otherwise (its output is only shown when something failed).
 */
export function serviceLaunch(input: ServiceLaunchInput): ServiceLaunch {
  const env: Record<string, string | undefined> = { ...(input.baseEnv ?? process.env) };
  for (const name of SERVICE_VARIABLES) delete env[name];
  Object.assign(env, {
    DATABASE_URL: input.databaseUrl,
    PAYONCE_PROVIDER_URL: input.providerUrl,
    STRIPE_WEBHOOK_SECRET: input.stripeWebhookSecret,
    STANDARD_WEBHOOKS_SECRET: input.standardWebhooksSecret,
    PAYONCE_ADMIN_TOKEN: input.adminToken,
  });
  if (input.paymeKey !== undefined) env.PAYONCE_PAYME_KEY = input.paymeKey;
  if (input.click !== undefined) {
    env.PAYONCE_CLICK_SERVICE_ID = String(input.click.serviceId);
    env.PAYONCE_CLICK_SECRET_KEY = input.click.secretKey;
  }
  if (input.uzum !== undefined) {
    env.PAYONCE_UZUM_LOGIN = input.uzum.login;
    env.PAYONCE_UZUM_PASSWORD = input.uzum.password;
    env.PAYONCE_UZUM_SERVICE_ID = String(input.uzum.serviceId);
  }
  if (input.telegram !== undefined) {
    env.PAYONCE_TELEGRAM_BOT_TOKEN = input.telegram.botToken;
    env.PAYONCE_TELEGRAM_SECRET_TOKEN = input.telegram.secretToken;
    env.PAYONCE_TELEGRAM_API_URL = input.telegram.apiUrl;
  }
  const { timings } = input;
  const args = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(input.port),
    '--provider-timeout-ms',
    String(timings.providerTimeoutMs),
    '--worker-poll-ms',
    String(timings.workerPollMs),
    '--lease-ms',
    String(timings.leaseMs),
    '--reconcile-every-ms',
    String(timings.reconcileEveryMs),
    '--reconcile-after-ms',
    String(timings.reconcileAfterMs),
    '--fulfil-delay-ms',
    String(timings.fulfilDelayMs),
    '--wait-for-in-flight-ms',
    String(timings.waitForInFlightMs),
    '--log-level',
    env.PAYONCE_LOG_LEVEL ?? 'warn',
  ];
  const url = `http://127.0.0.1:${input.port}`;
  return Object.freeze({ script: payonceBin(), args: Object.freeze(args), env, url, healthUrl: `${url}/healthz` });
}
