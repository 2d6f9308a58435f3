import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import {
  checkBatteryOrders,
  type SandboxMode,
  sandboxCountOf,
  sandboxModeOf,
  sandboxUsageError,
  serviceIdOf,
  valueAmountPairs,
} from './sandbox-options.js';
import { millis } from './serve.js';

/** Options of `payonce sandbox uzum` as commander parses them. */
export interface SandboxUzumOptions {
  check?: string | boolean;
  pay?: string | boolean;
  merchantUrl?: string;
  login?: string;
  password?: string;
  serviceId?: number;
  paramField: string;
  orders?: string;
  count: number;
  inject?: string;
  callTimeoutMs?: number;
}

type UzumCliOrder = { params: Record<string, unknown>; amountTiyin: number };
interface UzumCliTarget {
  merchantUrl: string;
  login: string;
  password: string;
  serviceId: number;
  callTimeoutMs?: number;
}

async function loadUzum() {
  return importWithPeers('payonce sandbox uzum', () => import('@payonce/sandbox/uzum'));
}

async function runCheck(io: CliIo, target: UzumCliTarget, orders: UzumCliOrder[]) {
  const { runUzumAcceptance, formatAcceptanceReport, UZUM_ACCEPTANCE_ORDERS } = await loadUzum();
  checkBatteryOrders(orders, UZUM_ACCEPTANCE_ORDERS);
  const report = await runUzumAcceptance({ ...target, orders });
  // A battery stopped before its first check is its one stop line, printed as the error.
  if (report.checks.length > 0) for (const line of formatAcceptanceReport(report)) io.out(line);
  if (!report.passed) {
    const failed = report.checks.filter((c) => !c.passed).length;
    throw new Error(report.stopped ?? `${failed} Uzum acceptance check(s) failed against ${target.merchantUrl}`);
  }
}

async function runPay(io: CliIo, target: UzumCliTarget, orders: UzumCliOrder[], options: SandboxUzumOptions) {
  const { createUzumPayer, parseUzumFaults } = await loadUzum();
  const faults = parseUzumFaults(options.inject ?? '');
  const payer = createUzumPayer(target);
  let unfinished = 0;
  for (let i = 0; i < options.count; i++) {
    const result = await payer.pay(orders[i % orders.length] as UzumCliOrder, faults);
    if (result.outcome !== (faults.reverse ? 'reversed' : 'confirmed')) unfinished++;
    const refused = result.refusedWith === undefined ? '' : ` (errorCode ${result.refusedWith})`;
    io.out(
      `${result.transId}  ${JSON.stringify(result.params)}  ${result.amountTiyin} tiyin  ${result.outcome}${refused}`,
    );
  }
  const ledger = payer.ledger.snapshot();
  io.out(
    `moved ${ledger.movedTiyin} tiyin in ${ledger.calls} calls (${ledger.statusPolls} /status polls); faults injected: ${ledger.faults.length}`,
  );
  for (const m of ledger.mismatches) io.out(`MISMATCH ${m.transId} ${m.call}: ${m.what}`);
  if (ledger.mismatches.length > 0) throw new Error(`${ledger.mismatches.length} answer(s) broke Uzum's protocol`);
  if (unfinished > 0) throw new Error(`${unfinished} payment(s) refused or left without an answer`);
}

function targetOf(options: SandboxUzumOptions, { url }: SandboxMode): UzumCliTarget {
  const login = options.login ?? process.env.UZUM_LOGIN;
  const password = options.password ?? process.env.UZUM_PASSWORD;
  if (login === undefined || login === '') throw new CliUsageError('--login (or UZUM_LOGIN) is required');
  if (password === undefined || password === '') throw new CliUsageError('--password (or UZUM_PASSWORD) is required');
  if (options.serviceId === undefined) throw new CliUsageError('--service-id is required');
  return { merchantUrl: url, login, password, serviceId: options.serviceId, callTimeoutMs: options.callTimeoutMs };
}

/** The library options of the Uzum sandbox and the flags that carry them. */
const UZUM_FLAGS = Object.freeze({
  merchantUrl: '--merchant-url',
  login: '--login',
  password: '--password',
  serviceId: '--service-id',
  orders: '--orders',
  faults: '--inject',
});

/**
 * Registers `payonce sandbox uzum` under `sandbox`: plays Uzum Bank against a merchant's Merchant API webhooks
 * (`<URL>/check`, `/create`, `/confirm`, `/reverse`, `/status`). `--check URL` (or `--check --merchant-url URL`)
 * runs the acceptance battery (`runUzumAcceptance`) and prints a pass/fail table, exiting 1 when a check failed or
 * the battery stopped early (its one line: cannot connect, 404, HTML, the credentials or the amount refused);
 * `--pay URL` (or `--merchant-url URL`, with or without `--pay`) pays `--count` orders with `--inject` faults,
 * printing each outcome and the ledger, exiting 1 when an answer broke the protocol or a payment did not end as
 * expected. Both need `--login`, `--password` (or `UZUM_LOGIN`,
 * `UZUM_PASSWORD`), `--service-id` and `--orders`. Usage errors exit 2.
 * @see docs/sandbox.md "Uzum sandbox"; https://developer.uzumbank.uz/en/merchant/
 */
export function registerSandboxUzum(sandbox: Command, io: CliIo): void {
  sandbox
    .command('uzum')
    .description("play Uzum Bank against a merchant's Merchant API webhooks: the acceptance battery or payments")
    .option('--check [url]', 'run the acceptance battery against the webhooks under this URL (or --merchant-url)')
    .option(
      '--pay [url]',
      'pay --count orders through the webhooks under this URL (or --merchant-url), as Uzum Bank does',
    )
    .option('--merchant-url <url>', 'the base URL of your webhooks; alone, it means --pay')
    .option('--login <login>', 'the Basic login; default: the UZUM_LOGIN environment variable')
    .option('--password <password>', 'the Basic password; default: the UZUM_PASSWORD environment variable')
    .option('--service-id <id>', 'your Uzum serviceId', serviceIdOf)
    .option('--param-field <name>', 'the params field of --orders VALUE:AMOUNT', 'account')
    .option('--orders <list>', 'payable orders: VALUE:AMOUNT,… (amount in tiyin)')
    .option('--count <n>', 'how many payments --pay makes (orders reused in turn)', sandboxCountOf, 1)
    .option('--inject <faults>', 'faults while paying: lost-answer,timeout,duplicate=N,parallel=N,reverse')
    .option(
      '--call-timeout-ms <ms>',
      'how long one call waits for its answer (default 10000)',
      millis('--call-timeout-ms', 1),
    )
    .action(async (options: SandboxUzumOptions) => {
      const mode = sandboxModeOf(options, '--merchant-url', options.merchantUrl, true);
      const target = targetOf(options, mode);
      if (options.orders === undefined) {
        throw new CliUsageError('--orders is required: the orders your endpoint will accept');
      }
      const orders = valueAmountPairs(options.orders).map((o) => ({
        params: { [options.paramField]: o.value },
        amountTiyin: o.amount,
      }));
      try {
        if (mode.mode === 'check') await runCheck(io, target, orders);
        else await runPay(io, target, orders, options);
      } catch (error) {
        if (error instanceof InvalidOption) throw sandboxUsageError(error, UZUM_FLAGS);
        throw error;
      }
    });
}
