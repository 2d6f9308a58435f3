import { randomBytes, randomInt } from 'node:crypto';
import type { FaultRulesFile } from '@payonce/sandbox/internal/faults/fault-rules.js';
import type { StormAppAdapter } from '@payonce/storm/internal/app/storm-app-adapter.js';
import type { StormProviderSecrets } from '@payonce/storm/internal/app/storm-app-providers.js';
import type { TelegramStormSandbox } from '@payonce/storm/internal/telegram/telegram-storm-sandbox.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { onInterrupt } from '../demo/interrupt.js';
import { AppExited } from './app-exited.js';
import { appPort } from './app-port.js';
import { AppProcess } from './app-process.js';
import { loadStormAdapter } from './load-storm-adapter.js';
import { portAnswers } from './port-answers.js';
import { waitHealthy } from './wait-healthy.js';
import { withRestart } from './with-restart.js';

/** What `payonce storm --adapter FILE [--start CMD] [--url URL]` is told about the app under test. */
export interface StormAppWorldOptions {
  /** The adapter file (docs/storm-your-app.md). */
  readonly adapter: string;
  /** Shell command that starts the app; without it the app must already run at `url`. */
  readonly start?: string;
  /**
   * Base URL of the app. @default with `start`: `http://127.0.0.1:<a free port from 20000–29999>` (the app gets it
   * as PORT; outside the OS's ephemeral range, so no `listen(0)` elsewhere takes it while the app boots)
   */
  readonly url?: string;
  /** How long the started (or restarted) app has to answer `adapter.health()`, in ms. @default 60_000 */
  readonly startTimeoutMs?: number;
  /** Fault rules of the storm's sandbox (`--faults FILE`); their random draws are seeded from each run's seed. */
  readonly faultRules?: FaultRulesFile;
  /** Also start the Telegram sandbox (`--provider telegram`), given to the app as its Bot API. @default false */
  readonly telegram?: boolean;
}

/**
 * The app and the sandbox a storm runs on: the adapter to pass as `runStorm({ app })`, the sandbox's URL, and the
 * provider secrets the app was given (the Payme cashbox key of `--provider payme`).
 */
export interface StormAppWorld {
  readonly app: StormAppAdapter;
  readonly provider: string;
  readonly secrets: StormProviderSecrets;
  /** The Telegram sandbox the app was given (with `options.telegram`); its token and webhook secret are in `secrets`. */
  readonly telegram?: TelegramStormSandbox;
  /**
   * Aborts, with an {@link AppExited}, when the started app ends during the run (not by `crashAndRestart`): give it
   * to the storm (`runStorm({ signal })`) so the run stops at once instead of every scenario waiting out its budget.
   */
  readonly signal: AbortSignal;
}

/** A bot token the Telegram sandbox accepts (`<bot id>:<secret>`) and a webhook secret (`A-Z a-z 0-9 _ -`). */
function telegramBot(): { botToken: string; webhookSecret: string } {
  const botId = 100_000_000 + randomInt(900_000_000);
  return {
    botToken: `${botId}:storm-${randomBytes(16).toString('hex')}`,
    webhookSecret: `storm_${randomBytes(16).toString('hex')}`,
  };
}

/** The environment the started app gets for a Telegram run: the sandbox's Bot API, the bot token, the secret. */
function telegramEnv(secrets: StormProviderSecrets): Record<string, string> {
  const { telegram } = secrets;
  if (telegram === undefined) return {};
  return {
    PAYONCE_STORM_TELEGRAM_API_URL: telegram.apiUrl,
    PAYONCE_STORM_TELEGRAM_BOT_TOKEN: telegram.botToken,
    PAYONCE_STORM_TELEGRAM_WEBHOOK_SECRET: telegram.webhookSecret,
  };
}

function appUrlOf(options: StormAppWorldOptions, freePort: () => Promise<number>): Promise<URL> | URL {
  if (options.url === undefined) {
    if (options.start === undefined) {
      throw new CliUsageError('--adapter needs --url (the running app) or --start (a command that starts it)');
    }
    return freePort().then((port) => new URL(`http://127.0.0.1:${port}`));
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new CliUsageError(`--url must be an http(s) URL, got "${options.url}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliUsageError(`--url must be an http(s) URL, got "${options.url}"`);
  }
  return url;
}

/** The values of the storm's secrets the started app gets: redacted wherever its output is shown. */
function secretValues(webhookSecret: string, apiKey: string, secrets: StormProviderSecrets): string[] {
  const { telegram } = secrets;
  return [
    webhookSecret,
    apiKey,
    secrets.paymeKey,
    secrets.clickSecretKey,
    secrets.uzumLogin,
    secrets.uzumPassword,
    ...(telegram === undefined ? [] : [telegram.botToken, telegram.webhookSecret]),
  ];
}

/**
 * @throws {CliUsageError} with `--start`, something already accepts connections on `--url`'s port: the storm would
 *   test whatever answers there, not the app it starts.
 */
async function ensurePortFree(options: StormAppWorldOptions, url: URL): Promise<void> {
  if (options.start === undefined || options.url === undefined || !(await portAnswers(url))) return;
  throw new CliUsageError(
    `--url ${options.url}: something already accepts connections on port ${url.port || (url.protocol === 'https:' ? 443 : 80)} ` +
      'before the storm started the app, so the storm could not tell your app from it. Stop what listens there, ' +
      'or leave out --url (with --start the storm gives the app a free port as PORT)',
  );
}

/** The error that stops the run when the started app ends during it: how it ended and its last output lines. */
function appExited(app: AppProcess, why: string): AppExited {
  const when = app.starts > 1 ? 'after the storm restarted it (crash scenario)' : 'during the run';
  return new AppExited(
    `the app (${app.command}) ${why} ${when}; the run was stopped, no verdict on a dead app; ${app.output.describe()}`,
  );
}

/**
 * Runs `body` on a storm world for the user's own app (`payonce storm --adapter`): starts the storm's Stripe-shaped
 * sandbox (`@payonce/sandbox`, secrets served, retries compressed as `payonce demo` does), makes the adapter with
 * the app's URL and the sandbox's URL, webhook secret and API key; with `start`, spawns the app command with them in
 * its environment (`PORT`, `PAYONCE_STORM_APP_URL`, `PAYONCE_STORM_SANDBOX_URL`, `PAYONCE_STORM_WEBHOOK_SECRET`,
 * `PAYONCE_STORM_API_KEY`, and the provider storms' `PAYONCE_STORM_PAYME_KEY`, `PAYONCE_STORM_CLICK_SERVICE_ID`,
 * `PAYONCE_STORM_CLICK_SECRET_KEY`, `PAYONCE_STORM_UZUM_LOGIN`, `_PASSWORD`, `_SERVICE_ID`, also in
 * `setup.providers`; with `options.telegram`, also the Telegram sandbox: `PAYONCE_STORM_TELEGRAM_API_URL`,
 * `_BOT_TOKEN`, `_WEBHOOK_SECRET`, in `setup.providers.telegram`), waits for `adapter.health()` (and, for a started
 * app, checks it is the one that answers: see `waitHealthy`) and offers `crashAndRestart` (SIGKILL the app's process
 * group, start the command again) unless the adapter has its own; points the sandbox's webhooks at
 * `adapter.webhookUrl('stripe')`. A started app that ends during the run aborts `world.signal` and `body`'s result is
 * that {@link AppExited}. The app's output is shown only in errors, its last lines, the storm's secrets redacted.
 * Everything is stopped afterwards, on failure and on SIGINT/SIGTERM too.
 * @throws {CliUsageError} neither `url` nor `start`, a malformed `url`, `url` with `start` on a port something
 *   already listens on, a bad adapter file (exit status 2).
 * @throws {AppNotHealthy} the started app exited, another process answered its health check, or it was not healthy
 *   within `startTimeoutMs` (with its last output lines).
 * @throws {AppExited} the started app ended during the run (with its last output lines).
 * @throws {MissingPeer} `@payonce/sandbox`, or `tsx` for a `.ts` adapter, is not installed.
 */
export async function withStormApp<T>(
  options: StormAppWorldOptions,
  io: CliIo,
  body: (world: StormAppWorld) => Promise<T>,
): Promise<T> {
  const neededFor = 'payonce storm --adapter';
  const url = await appUrlOf(options, () => appPort());
  await ensurePortFree(options, url);
  const [factory, sandboxes, signer, telegramSandboxes] = await Promise.all([
    loadStormAdapter(options.adapter),
    importWithPeers(neededFor, () => import('@payonce/sandbox/internal/create-sandbox.js')),
    importWithPeers(neededFor, () => import('@payonce/sandbox/internal/webhook-signer.js')),
    options.telegram === true ? importWithPeers(neededFor, () => import('@payonce/sandbox/telegram')) : null,
  ]);
  const appUrl = url.href.replace(/\/+$/, '');
  const budgetMs = options.startTimeoutMs ?? 60_000;
  const webhookSecret = signer.newSigningSecret('stripe');
  const apiKey = `sk_test_storm_${randomBytes(12).toString('hex')}`;
  const sandbox = await sandboxes.createSandbox({
    timeScale: 0.001,
    signing: { scheme: 'stripe', secret: webhookSecret },
    deliveryTimeoutMs: 5_000,
    ...(options.faultRules === undefined ? {} : { faultRules: options.faultRules }),
    serveSecrets: true, // the storm signs its own events with the sandbox's secret (GET /_sandbox/signing)
  });
  const bot = telegramBot();
  const telegram = await telegramSandboxes?.createTelegramSandbox({ token: bot.botToken }).catch(async (error) => {
    await sandbox.close();
    throw error;
  });
  const secrets: StormProviderSecrets = {
    ...(telegram === undefined ? {} : { telegram: { apiUrl: telegram.url, ...bot } }),
    paymeKey: `storm-payme-key-${randomBytes(12).toString('hex')}`,
    clickServiceId: 10_000 + randomInt(90_000),
    clickSecretKey: `storm-click-key-${randomBytes(12).toString('hex')}`,
    uzumLogin: `storm-uzum-${randomBytes(4).toString('hex')}`,
    uzumPassword: `storm-uzum-password-${randomBytes(12).toString('hex')}`,
    uzumServiceId: 100_000 + randomInt(900_000),
  };
  let appProcess: AppProcess | null = null;
  const cleanup = async () => {
    await appProcess?.stop();
    await sandbox.close();
    await telegram?.close();
  };
  const release = onInterrupt(cleanup);
  const appGone = new AbortController();
  try {
    io.out(`payonce storm: sandbox provider ${sandbox.url}, app ${appUrl}`);
    if (telegram !== undefined) io.out(`payonce storm: Telegram sandbox (Bot API) ${telegram.url}`);
    const setup = { appUrl, sandboxUrl: sandbox.url, webhookSecret, apiKey, providers: secrets };
    if (options.start !== undefined) {
      const started = new AppProcess(
        options.start,
        {
          ...process.env,
          PORT: url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port,
          PAYONCE_STORM_APP_URL: appUrl,
          PAYONCE_STORM_SANDBOX_URL: sandbox.url,
          PAYONCE_STORM_WEBHOOK_SECRET: webhookSecret,
          PAYONCE_STORM_API_KEY: apiKey,
          PAYONCE_STORM_PAYME_KEY: secrets.paymeKey,
          PAYONCE_STORM_CLICK_SERVICE_ID: String(secrets.clickServiceId),
          PAYONCE_STORM_CLICK_SECRET_KEY: secrets.clickSecretKey,
          PAYONCE_STORM_UZUM_LOGIN: secrets.uzumLogin,
          PAYONCE_STORM_UZUM_PASSWORD: secrets.uzumPassword,
          PAYONCE_STORM_UZUM_SERVICE_ID: String(secrets.uzumServiceId),
          ...telegramEnv(secrets),
        },
        secretValues(webhookSecret, apiKey, secrets),
      );
      appProcess = started;
      started.onUnexpectedExit((why) => appGone.abort(appExited(started, why)));
      await started.start();
      io.out(`app: started "${options.start}" (pid ${started.pid}), waiting for it to be healthy`);
    }
    const made = await factory(setup);
    try {
      await waitHealthy(made, appProcess, budgetMs, appUrl);
    } catch (error) {
      await made.close?.().catch(() => undefined); // runStorm, which closes it otherwise, never got it
      throw error;
    }
    const app = appProcess === null ? made : withRestart(made, appProcess, budgetMs, appUrl);
    sandbox.controls.setWebhookUrl(app.webhookUrl('stripe'));
    const world = { app, provider: sandbox.url, secrets, signal: appGone.signal };
    let result: T;
    try {
      result = await body({ ...world, ...(telegram === undefined ? {} : { telegram }) });
    } catch (error) {
      appGone.signal.throwIfAborted(); // whatever failed, the app's exit is the cause
      throw error;
    }
    appGone.signal.throwIfAborted(); // it ended after the last scenario: still a crash under the storm
    return result;
  } finally {
    release();
    const pid = appProcess?.pid;
    const ended = appProcess?.exited;
    await cleanup();
    if (appProcess !== null)
      io.out(pid === null ? `app: not running at the end (it ${ended})` : `app: stopped (pid ${pid})`);
  }
}
