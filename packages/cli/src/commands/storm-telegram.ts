import type { TelegramStormReport } from '@payonce/storm/internal/telegram/run-telegram-storm.js';
import type { ClosableTelegramTarget } from '@payonce/storm/internal/telegram/service-telegram-target.js';
import type { TelegramStormSandbox } from '@payonce/storm/internal/telegram/telegram-storm-sandbox.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { loadTelegramStorm } from '../storm-peer.js';
import {
  type LoadedProviderStorm,
  type ProviderRun,
  type ProviderStormCommandOptions,
  runProviderStormCommand,
} from './storm-provider.js';

/** The options of `payonce storm` the Telegram storm reads (the flags and variables of `payonce serve`). */
export interface TelegramStormCommandOptions extends ProviderStormCommandOptions {
  readonly telegramBotToken?: string;
  /** The secret token; with a comma-separated rotation list, the first one is sent. */
  readonly telegramSecretToken?: string;
  /** Where the storm's Telegram sandbox listens: the `--telegram-api-url` the service was started with. */
  readonly telegramApiUrl?: string;
}

/** A Telegram target with the sandbox the storm started for it: closing it closes both. */
export interface TelegramStormRig {
  readonly target: ClosableTelegramTarget;
  readonly sandbox: TelegramStormSandbox;
  close(): Promise<void>;
}

const given = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/** Host and port of a `http://host:port` Bot API URL. @throws {CliUsageError} anything else. */
function listenAddressOf(apiUrl: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new CliUsageError('--telegram-api-url must be http://host:port (where the storm’s Telegram sandbox listens)');
  }
  const port = Number(url.port);
  if (
    url.protocol !== 'http:' ||
    !Number.isInteger(port) ||
    port <= 0 ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new CliUsageError('--telegram-api-url must be http://host:port (where the storm’s Telegram sandbox listens)');
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * `payonce storm --provider telegram`: starts the Telegram sandbox at `--telegram-api-url` (the Bot API the service
 * was started with, accepting `--telegram-bot-token`), then runs the Telegram storm against the service at
 * `--target` (`POST /telegram/webhook` with `--telegram-secret-token`, `XTR` orders). Output, report and exit status
 * as `--provider payme`; the tokens are never printed.
 * @throws {CliUsageError} a token or the API URL missing or malformed, `--replica`, a bad `--only` (exit status 2).
 * @throws {ProviderStormFailed} a scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the webhook does not answer, or refuses the secret token (exit status 1).
 * @see docs/storm.md "Telegram storm".
 */
export async function runTelegramStormCommand(
  options: TelegramStormCommandOptions,
  io: CliIo,
): Promise<TelegramStormReport> {
  const token = options.telegramBotToken;
  const secretToken = options.telegramSecretToken?.split(',')[0]?.trim();
  if (!given(token) || !given(secretToken) || !given(options.telegramApiUrl)) {
    throw new CliUsageError(
      '--provider telegram needs --telegram-bot-token, --telegram-secret-token and --telegram-api-url (or PAYONCE_TELEGRAM_BOT_TOKEN, PAYONCE_TELEGRAM_SECRET_TOKEN, PAYONCE_TELEGRAM_API_URL): the storm plays Telegram where the service’s Bot API URL points',
    );
  }
  const listen = listenAddressOf(options.telegramApiUrl);
  const { target: service, adminToken } = options;
  return runProviderStormCommand(options, io, 'Telegram', async () => {
    const telegram = await loadTelegramStorm('payonce storm --provider telegram');
    const sandbox = await telegram.createTelegramSandbox({ token, ...listen });
    return telegramStormOf(telegram, sandbox, { service, secretToken, adminToken });
  });
}

/** The Telegram storm against the service `params.service` with a running `sandbox`, as the command and the demo run it. */
export function telegramStormOf(
  telegram: Awaited<ReturnType<typeof loadTelegramStorm>>,
  sandbox: TelegramStormSandbox & { close(): Promise<void> },
  params: { service: string; secretToken: string; adminToken?: string },
) {
  return {
    ...telegram,
    target: (timeoutMs: number | undefined): TelegramStormRig => {
      try {
        const target = telegram.serviceTelegramTarget({ ...params, timeoutMs });
        return { target, sandbox, close: async () => Promise.all([target.close(), sandbox.close()]).then(() => {}) };
      } catch (error) {
        void sandbox.close();
        throw error;
      }
    },
    run: (rig: TelegramStormRig, run: ProviderRun) =>
      telegram.runTelegramStorm({ target: rig.target, sandbox: rig.sandbox, ...run }),
    table: telegram.formatTelegramStormTable,
    summary: telegram.telegramStormSummary,
  } satisfies LoadedProviderStorm<TelegramStormRig, TelegramStormReport>;
}
