import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { registerSandboxClick } from './sandbox-click.js';
import { registerSandboxPayme } from './sandbox-payme.js';
import { registerSandboxTelegram } from './sandbox-telegram.js';
import { registerSandboxUzum } from './sandbox-uzum.js';
import { millis, untilSignal } from './serve.js';

/** Options of `payonce sandbox` as commander parses them. */
export interface SandboxCommandOptions {
  port: number;
  webhookUrl: string[];
  webhookSecret: string[];
  webhookEvents?: string;
  faults?: string;
  seed?: number;
  timeScale?: number;
  retrySchedule?: string;
  deliveryTimeoutMs?: number;
  serveSecrets?: boolean;
  allowedHost: string[];
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function portOf(value: string): number {
  const n = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n > 65_535) throw new CliUsageError(`--port: "${value}" is not a port 0…65535`);
  return n;
}

function integerOf(flag: string): (value: string) => number {
  return (value) => {
    if (!/^-?\d{1,15}$/.test(value.trim())) throw new CliUsageError(`${flag}: "${value}" is not an integer`);
    return Number(value.trim());
  };
}

function scaleOf(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1000)
    throw new CliUsageError(`--time-scale: "${value}" must be > 0 and ≤ 1000`);
  return n;
}

/** The lines `payonce sandbox` prints once it listens: where it is, the SDK line, endpoints and the ledger. */
export function sandboxBanner(
  url: string,
  port: number,
  endpoints: readonly { id: string; url: string; secret: string }[],
  secretGiven: boolean,
): string[] {
  const lines = [
    `payonce sandbox listening on ${url}`,
    'use it with your existing Stripe code (any sk_test_… key):',
    `  const stripe = new Stripe('sk_test_…', { host: '127.0.0.1', port: ${port}, protocol: 'http' });`,
  ];
  for (const endpoint of endpoints) {
    // A secret the user passed is never echoed; a generated one is shown once, as `stripe listen` does.
    const secret = secretGiven ? '(the --webhook-secret you gave)' : endpoint.secret;
    lines.push(`webhook endpoint ${endpoint.id} → ${endpoint.url}, signing secret ${secret}`);
  }
  if (endpoints.length === 0) lines.push('no webhook endpoint yet: POST /v1/webhook_endpoints or pass --webhook-url');
  lines.push(`ledger (charges, payments, deliveries, faults): curl -s ${url}/_sandbox/ledger`);
  return lines;
}

/**
 * Registers `sandbox` on the `payonce` program: starts the Stripe-compatible sandbox provider (docs/sandbox.md) on
 * 127.0.0.1 with `--port`, webhook endpoints from `--webhook-url` (repeatable; all signed with the
 * `--webhook-secret`s: the first is current, more are older secrets still signed during a rotation), fault rules
 * from `--faults FILE` (JSON `{ seed?, rules }`) and `--seed`, the signing secrets served over HTTP only with
 * `--serve-secrets`, other `Host` names than loopback only with `--allowed-host`; prints the base URL and the `new Stripe(…)` line,
 * and runs until SIGTERM or SIGINT. Bad flags or a bad faults file exit 2. `payonce sandbox payme|click|uzum` play those
 */
export function registerSandbox(program: Command, io: CliIo): void {
  // Positional options (with the program's): `sandbox`'s own flags (`--port`, …) are read before a subcommand only,
  // so `payonce sandbox telegram --port N` gives N to the subcommand, not to the Stripe sandbox (issue 38).
  const sandbox = program.command('sandbox').enablePositionalOptions();
  registerSandboxPayme(sandbox, io);
  registerSandboxClick(sandbox, io);
  registerSandboxUzum(sandbox, io);
  registerSandboxTelegram(sandbox, io);
  sandbox
    .description(
      'run the Stripe-compatible sandbox provider; the official stripe SDK works against it unchanged (needs @payonce/sandbox)',
    )
    .addOption(
      new Option('--port <port>', 'port on 127.0.0.1 (0 picks one; the URL is printed)')
        .default(12111)
        .argParser(portOf),
    )
    .option('--webhook-url <url>', 'register a webhook endpoint (loopback http URL); repeatable', collect, [])
    .option(
      '--webhook-secret <whsec>',
      'signing secret of the endpoints; repeat to also sign with older secrets (rotation)',
      collect,
      [],
    )
    .option(
      '--webhook-events <types>',
      "event types the --webhook-url endpoints receive, comma separated (default '*')",
    )
    .option(
      '--faults <file>',
      'JSON fault rules: { "seed"?: n, "rules": [{ method?, path?, fault, probability?, count? }] }',
    )
    .option('--seed <n>', 'seed of the fault rules’ random draws', integerOf('--seed'))
    .option('--time-scale <x>', 'multiplier of retry delays and settle times (0.001 turns 1 h into 3.6 s)', scaleOf)
    .addOption(
      new Option('--retry-schedule <name>', 'webhook retry schedule')
        .choices(['stripe-test', 'stripe-live', 'standard-webhooks'])
        .default('stripe-test'),
    )
    .option(
      '--delivery-timeout-ms <ms>',
      'how long one webhook delivery waits for an answer (default 15000)',
      millis('--delivery-timeout-ms', 1),
    )
    .option('--serve-secrets', 'serve the signing secrets over HTTP (GET /_sandbox/signing; payonce storm needs it)')
    .option(
      '--allowed-host <name>',
      'a Host name answered besides 127.0.0.1, localhost and ::1; repeatable',
      collect,
      [],
    )
    .action(async (options: SandboxCommandOptions) => {
      const faultRules = options.faults === undefined ? undefined : await readFaults(options.faults);
      const signal = untilSignal();
      const { createSandbox } = await importWithPeers(
        'payonce sandbox',
        () => import('@payonce/sandbox/internal/create-sandbox.js'),
      );
      const [secret, ...previousSecrets] = options.webhookSecret;
      const events = options.webhookEvents
        ?.split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
      let sandbox: Awaited<ReturnType<typeof createSandbox>>;
      try {
        sandbox = await createSandbox({
          port: options.port,
          signing: { scheme: 'stripe', secret, previousSecrets },
          webhookEndpoints: options.webhookUrl.map((url) => ({
            url,
            secret: secret,
            previousSecrets,
            enabledEvents: events,
          })),
          faultRules,
          seed: options.seed,
          timeScale: options.timeScale,
          retryScheduleMs: options.retrySchedule as 'stripe-test' | 'stripe-live' | 'standard-webhooks',
          deliveryTimeoutMs: options.deliveryTimeoutMs,
          serveSecrets: options.serveSecrets === true,
          allowedHosts: options.allowedHost,
        });
      } catch (error) {
        if (error instanceof InvalidOption) throw new CliUsageError(error.message);
        throw error;
      }
      const endpoints = sandbox.controls.endpoints();
      for (const line of sandboxBanner(sandbox.url, sandbox.port, endpoints, secret !== undefined)) io.out(line);
      const received = await signal;
      io.out(`payonce sandbox: ${received}, closing`);
      await sandbox.close();
    });
}

/**
 * Reads a `--faults FILE` (`{ seed?, rules }` or an array of rules, docs/sandbox.md) for `payonce sandbox` and
 * `payonce storm --adapter`. @throws {CliUsageError} the file cannot be read, is not JSON or not that shape.
 */
export async function readFaults(file: string) {
  const { faultRulesFileOf } = await importWithPeers(
    'payonce sandbox',
    () => import('@payonce/sandbox/internal/faults/fault-rules.js'),
  );
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`--faults: cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return faultRulesFileOf(JSON.parse(text));
  } catch (error) {
    throw new CliUsageError(`--faults ${file}: ${error instanceof InvalidOption ? error.message : 'not JSON'}`);
  }
}
