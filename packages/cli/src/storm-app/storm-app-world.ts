import { randomBytes, randomInt } from 'node:crypto';
import type { FaultRulesFile } from '@payonce/sandbox/internal/faults/fault-rules.js';
import type { StormAppAdapter } from '@payonce/storm/internal/app/storm-app-adapter.js';
import type { StormProviderSecrets } from '@payonce/storm/internal/app/storm-app-providers.js';
import type { TelegramStormSandbox } from '@payonce/storm/internal/telegram/telegram-storm-sandbox.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { findFreePort } from '../demo/free-port.js';
import { onInterrupt } from '../demo/interrupt.js';
import { AppNotHealthy } from './app-not-healthy.js';
import { AppProcess } from './app-process.js';
import { loadStormAdapter } from './load-storm-adapter.js';

/** What `payonce storm --adapter FILE [--start CMD] [--url URL]` is told about the app under test. */
export interface StormAppWorldOptions {
  /** The adapter file (docs/storm-your-app.md). */
  readonly adapter: string;
  /** Shell command that starts the app; without it the app must already run at `url`. */
  readonly start?: string;
  /** Base URL of the app. @default with `start`: `http://127.0.0.1:<a free port>` (the app gets it as PORT) */
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

/**
 * Resolves when `adapter.health()` does (asked every 100 ms). @throws {AppNotHealthy} the started app exited, or it was not
 * healthy within `budgetMs` (the message ends with its last output lines).
 */
async function waitHealthy(adapter: StormAppAdapter, app: AppProcess | null, budgetMs: number): Promise<void> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      await adapter.health();
      return;
    } catch (error) {
      const tail = app === null ? '' : `\n${app.output.slice(-20).join('\n')}`;
      if (app?.exited) throw new AppNotHealthy(`the app (${app.command}) ${app.exited} before it was healthy${tail}`);
      if (Date.now() >= deadline) {
        const why = error instanceof Error ? error.message : String(error);
        throw new AppNotHealthy(`the app was not healthy within ${budgetMs} ms: ${why}${tail}`, { cause: error });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `made` with `crashAndRestart` = SIGKILL the started app's process group, start the command again, wait until it
 * is healthy (unless the adapter has its own). Methods are delegated, so a class-based adapter keeps its `this`.
 */
function withRestart(made: StormAppAdapter, started: AppProcess, budgetMs: number): StormAppAdapter {
  if (made.capabilities?.crashAndRestart !== undefined) return made;
  return {
    name: made.name,
    health: () => made.health(),
    webhookUrl: (scheme, replica) => made.webhookUrl(scheme, replica),
    createOrder: (call) => made.createOrder(call),
    startPayment: (call) => made.startPayment(call),
    readOrder: (call) => made.readOrder(call),
    capabilities: {
      ...made.capabilities,
      async crashAndRestart() {
        const oldPid = started.pid ?? 0;
        await started.kill();
        await started.start();
        await waitHealthy(made, started, budgetMs);
        return { oldPid, newPid: started.pid ?? 0 };
      },
    },
    ...(made.providers === undefined ? {} : { providers: made.providers }),
    close: async () => {
      await made.close?.();
    },
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

/**
 * Runs `body` on a storm world for the user's own app (`payonce storm --adapter`): starts the storm's Stripe-shaped
 * sandbox (`@payonce/sandbox`, secrets served, retries compressed as `payonce demo` does), makes the adapter with
 * the app's URL and the sandbox's URL, webhook secret and API key; with `start`, spawns the app command with them in
 * its environment (`PORT`, `PAYONCE_STORM_APP_URL`, `PAYONCE_STORM_SANDBOX_URL`, `PAYONCE_STORM_WEBHOOK_SECRET`,
 * `PAYONCE_STORM_API_KEY`, and the provider storms' `PAYONCE_STORM_PAYME_KEY`, `PAYONCE_STORM_CLICK_SERVICE_ID`,
 * `PAYONCE_STORM_CLICK_SECRET_KEY`, `PAYONCE_STORM_UZUM_LOGIN`, `_PASSWORD`, `_SERVICE_ID`, also in
 * `setup.providers`; with `options.telegram`, also the Telegram sandbox: `PAYONCE_STORM_TELEGRAM_API_URL`,
 * `_BOT_TOKEN`, `_WEBHOOK_SECRET`, in `setup.providers.telegram`), waits for `adapter.health()` and offers
 * `crashAndRestart` (SIGKILL the app's process group, start the command again) unless the adapter has its own;
 * points the sandbox's webhooks at
 * `adapter.webhookUrl('stripe')`. Everything is stopped afterwards, on failure and on SIGINT/SIGTERM too.
 * @throws {CliUsageError} neither `url` nor `start`, a malformed `url`, a bad adapter file (exit status 2).
 * @throws {AppNotHealthy} the started app exited, or was not healthy within `startTimeoutMs` (with its last output
 *   lines).
 * @throws {MissingPeer} `@payonce/sandbox`, or `tsx` for a `.ts` adapter, is not installed.
 */
export async function withStormApp<T>(
  options: StormAppWorldOptions,
  io: CliIo,
  body: (world: StormAppWorld) => Promise<T>,
): Promise<T> {
  const neededFor = 'payonce storm --adapter';
  const url = await appUrlOf(options, () => findFreePort());
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
  try {
    io.out(`payonce storm: sandbox provider ${sandbox.url}, app ${appUrl}`);
    if (telegram !== undefined) io.out(`payonce storm: Telegram sandbox (Bot API) ${telegram.url}`);
    const setup = { appUrl, sandboxUrl: sandbox.url, webhookSecret, apiKey, providers: secrets };
    if (options.start !== undefined) {
      appProcess = new AppProcess(options.start, {
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
      });
      await appProcess.start();
      io.out(`app: started "${options.start}" (pid ${appProcess.pid}), waiting for it to be healthy`);
    }
    const made = await factory(setup);
    try {
      await waitHealthy(made, appProcess, budgetMs);
    } catch (error) {
      await made.close?.().catch(() => undefined); // runStorm, which closes it otherwise, never got it
      throw error;
    }
    const app = appProcess === null ? made : withRestart(made, appProcess, budgetMs);
    sandbox.controls.setWebhookUrl(app.webhookUrl('stripe'));
    return await body({ app, provider: sandbox.url, secrets, ...(telegram === undefined ? {} : { telegram }) });
  } finally {
    release();
    const pid = appProcess?.pid;
    await cleanup();
    if (appProcess !== null) io.out(`app: stopped (${pid === null ? 'it had exited' : `pid ${pid}`})`);
  }
}
