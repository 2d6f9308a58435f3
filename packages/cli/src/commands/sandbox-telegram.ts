import type { Command } from 'commander';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { millis, portOf, untilSignal } from './serve.js';

/** Options of `payonce sandbox telegram` as commander parses them. */
export interface SandboxTelegramOptions {
  port: number;
  token?: string;
  inject?: string;
  webhookRetryDelayMs?: number;
  allowedHost: string[];
}

const PLACEHOLDER_TOKEN = '123456:SANDBOX-placeholder-token';

/** The lines `payonce sandbox telegram` prints once it listens (a token of yours is never echoed). */
export function telegramSandboxBanner(url: string, token: string): string[] {
  const shown = token === PLACEHOLDER_TOKEN ? token : '<the --token you gave>';
  return [
    `payonce sandbox telegram: a fake Bot API listening on ${url}`,
    `bot token ${shown}; point your bot at it, e.g. grammY:`,
    `  new Bot(token, { client: { apiRoot: '${url}' } })   // or payonce's apiBaseUrl: '${url}'`,
    `pay the latest invoice as a customer: curl -s -X POST ${url}/sandbox/pay -H 'content-type: application/json' -d '{}'`,
    `push an update: curl -s -X POST ${url}/sandbox/update -H 'content-type: application/json' -d '{"message":{"message_id":1,"date":1767225600,"chat":{"id":700000001,"type":"private"},"text":"hi"}}'`,
    `ledger (payments, refunds, faults): curl -s ${url}/sandbox/ledger`,
  ];
}

/**
 * Registers `payonce sandbox telegram` under `sandbox`: starts the fake Telegram Bot API of
 * `@payonce/sandbox/telegram` (long polling, webhooks with redelivery, invoices, a paying customer, Stars refunds)
 * on 127.0.0.1 with `--port`, the bot token `--token` (default a placeholder), faults from `--inject`
 * (`duplicate,reorder,lose-get-updates=N,slow-pre-checkout=MS,cancelled-order`); prints the URL and runs until
 * SIGTERM or SIGINT. Bad flags exit 2.
 * @see docs/sandbox.md "Telegram sandbox".
 */
export function registerSandboxTelegram(sandbox: Command, io: CliIo): void {
  sandbox
    .command('telegram')
    .description('run a fake Telegram Bot API: long polling, webhooks, invoices, a paying customer, Stars refunds')
    .option('--port <port>', 'port on 127.0.0.1 (0 picks one; the URL is printed)', portOf, 8081)
    .option('--token <token>', 'the bot token the sandbox accepts ("<bot id>:<secret>"; default a placeholder)')
    .option('--inject <faults>', 'faults: duplicate,reorder,lose-get-updates=N,slow-pre-checkout=MS,cancelled-order')
    .option(
      '--webhook-retry-delay-ms <ms>',
      'pause before a webhook redelivery (default 200)',
      millis('--webhook-retry-delay-ms', 1),
    )
    .option(
      '--allowed-host <name>',
      'a Host name answered besides 127.0.0.1, localhost and ::1; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (options: SandboxTelegramOptions) => {
      const token = options.token ?? PLACEHOLDER_TOKEN;
      if (!/^[1-9][0-9]*:[A-Za-z0-9_-]+$/.test(token))
        throw new CliUsageError('--token must look like "<bot id>:<secret>"');
      const { createTelegramSandbox, parseTelegramFaults } = await importWithPeers(
        'payonce sandbox telegram',
        () => import('@payonce/sandbox/telegram'),
      );
      let faults: ReturnType<typeof parseTelegramFaults>;
      try {
        faults = parseTelegramFaults(options.inject ?? '');
      } catch (error) {
        throw new CliUsageError(`--inject: ${(error as Error).message}`);
      }
      const signal = untilSignal();
      const sandbox = await createTelegramSandbox({
        port: options.port,
        token,
        faults,
        webhookRetryDelayMs: options.webhookRetryDelayMs,
        allowedHosts: options.allowedHost,
      });
      for (const line of telegramSandboxBanner(sandbox.url, token)) io.out(line);
      const received = await signal;
      const net = Object.entries(sandbox.ledger.snapshot().netByCurrency)
        .map(([currency, amount]) => `${amount} ${currency}`)
        .join(', ');
      io.out(`payonce sandbox telegram: ${received}, closing; moved ${net === '' ? 'nothing' : net}`);
      await sandbox.close();
    });
}
