import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { checkBatteryOrders, sandboxCountOf, sandboxModeOf, sandboxUsageError } from './sandbox-options.js';
import { millis } from './serve.js';

/** Options of `payonce sandbox payme` as commander parses them. */
export interface SandboxPaymeOptions {
  check?: string | boolean;
  pay?: string | boolean;
  merchantUrl?: string;
  key?: string;
  accountField: string;
  orders?: string;
  count: number;
  inject?: string;
  callTimeoutMs?: number;
}

/** One order of `--orders`: its account object and amount in tiyin. */
export interface CliPaymeOrder {
  readonly account: Record<string, unknown>;
  readonly amount: number;
}

/**
 * Reads `--orders`: `VALUE:AMOUNT[,VALUE:AMOUNT…]` (each an account whose `field` is VALUE, AMOUNT in tiyin), or a
 * JSON array of `{ "account": {…}, "amount": n }`.
 * @throws {CliUsageError} anything else.
 */
export function parseCliOrders(text: string, field: string): CliPaymeOrder[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed) as CliPaymeOrder[];
    } catch {
      throw new CliUsageError('--orders: not a JSON array of { account, amount }');
    }
  }
  return trimmed.split(',').map((part) => {
    const match = /^\s*([^:]+):(\d{1,15})\s*$/.exec(part);
    if (match === null) throw new CliUsageError(`--orders: "${part}" is not VALUE:AMOUNT (amount in tiyin)`);
    return { account: { [field]: match[1] as string }, amount: Number(match[2]) };
  });
}

async function loadPayme() {
  return importWithPeers('payonce sandbox payme', () => import('@payonce/sandbox/payme'));
}

async function runCheck(io: CliIo, url: string, key: string, orders: CliPaymeOrder[], options: SandboxPaymeOptions) {
  const { runPaymeAcceptance, formatPaymeReport, PAYME_ACCEPTANCE_ORDERS } = await loadPayme();
  checkBatteryOrders(orders, PAYME_ACCEPTANCE_ORDERS);
  const report = await runPaymeAcceptance({ merchantUrl: url, key, orders, callTimeoutMs: options.callTimeoutMs });
  // A battery stopped before its first check is its one stop line, printed as the error.
  if (report.checks.length > 0) for (const line of formatPaymeReport(report)) io.out(line);
  if (!report.passed) {
    const failed = report.checks.filter((c) => !c.passed).length;
    throw new Error(report.stopped ?? `${failed} Payme acceptance check(s) failed against ${url}`);
  }
}

async function runPay(io: CliIo, url: string, key: string, orders: CliPaymeOrder[], options: SandboxPaymeOptions) {
  const { createPaymePayer, parsePaymeFaults } = await loadPayme();
  const faults = parsePaymeFaults(options.inject ?? '');
  const payer = createPaymePayer({ merchantUrl: url, key, callTimeoutMs: options.callTimeoutMs });
  let unfinished = 0;
  for (let i = 0; i < options.count; i++) {
    const order = orders[i % orders.length] as CliPaymeOrder;
    const result = await payer.pay(order, faults);
    if (result.outcome === 'refused' || result.outcome === 'unknown') unfinished++;
    const refused = result.refusedWith === undefined ? '' : ` (error ${result.refusedWith})`;
    io.out(
      `${result.paymeId}  ${JSON.stringify(result.account)}  ${result.amount} tiyin  ${result.outcome}${refused}, state ${result.state}`,
    );
  }
  const ledger = payer.ledger.snapshot();
  io.out(`moved ${ledger.movedTiyin} tiyin in ${ledger.calls} calls; faults injected: ${ledger.faults.length}`);
  for (const m of ledger.mismatches) io.out(`MISMATCH ${m.paymeId} ${m.method}: ${m.what}`);
  if (ledger.mismatches.length > 0) throw new Error(`${ledger.mismatches.length} answer(s) broke Payme's protocol`);
  if (unfinished > 0) throw new Error(`${unfinished} payment(s) refused or left without an answer`);
}

/** The library options of the Payme sandbox and the flags that carry them. */
const PAYME_FLAGS = Object.freeze({
  merchantUrl: '--merchant-url',
  key: '--key',
  orders: '--orders',
  faults: '--inject',
});

/**
 * Registers `payonce sandbox payme` under `sandbox`: plays Payme against a merchant's Merchant API endpoint.
 * `--check URL` (or `--check --merchant-url URL`) runs the acceptance battery (`runPaymeAcceptance`) and prints a
 * pass/fail table, exiting 1 when a check failed or the battery stopped early (its one line: cannot connect, 404,
 * HTML, the key or the amount refused, another account field); `--pay URL` (or `--merchant-url URL`, with or without
 * `--pay`) pays `--count` orders through it with `--inject` faults, printing each outcome and the ledger, exiting 1
 * when an answer broke the protocol or a payment was refused or never answered. Both need `--key` (or `PAYME_KEY`)
 * and `--orders`. Usage errors exit 2.
 * @see docs/sandbox.md "Payme sandbox"; https://developer.help.paycom.uz/pesochnitsa
 */
export function registerSandboxPayme(sandbox: Command, io: CliIo): void {
  sandbox
    .command('payme')
    .description(
      "play Payme against a merchant's Merchant API endpoint: the acceptance battery (--check) or payments (needs @payonce/sandbox)",
    )
    .option('--check [url]', "run Payme's acceptance battery against this endpoint (or --merchant-url)")
    .option('--pay [url]', 'pay --count orders through this endpoint (or --merchant-url), as Payme does')
    .option('--merchant-url <url>', 'your Merchant API endpoint; alone, it means --pay')
    .option('--key <key>', 'the cashbox key (TEST_KEY); default: the PAYME_KEY environment variable')
    .option('--account-field <name>', 'the account field of --orders VALUE:AMOUNT', 'order_id')
    .option(
      '--orders <list>',
      'payable orders: VALUE:AMOUNT,… (amount in tiyin) or a JSON array of { account, amount }',
    )
    .option('--count <n>', 'how many payments --pay makes (orders reused in turn)', sandboxCountOf, 1)
    .option(
      '--inject <faults>',
      'faults while paying: lost-answer,timeout,duplicate=N,parallel=N,cancel-while-performing,expire',
    )
    .option(
      '--call-timeout-ms <ms>',
      'how long one call waits for its answer (default 10000)',
      millis('--call-timeout-ms', 1),
    )
    .action(async (options: SandboxPaymeOptions) => {
      const { mode, url } = sandboxModeOf(options, '--merchant-url', options.merchantUrl, true);
      const key = options.key ?? process.env.PAYME_KEY;
      if (key === undefined || key === '') throw new CliUsageError('--key (or PAYME_KEY) is required');
      if (options.orders === undefined)
        throw new CliUsageError('--orders is required: the orders your endpoint will accept');
      const orders = parseCliOrders(options.orders, options.accountField);
      try {
        if (mode === 'check') await runCheck(io, url, key, orders, options);
        else await runPay(io, url, key, orders, options);
      } catch (error) {
        if (error instanceof InvalidOption) throw sandboxUsageError(error, PAYME_FLAGS);
        throw error;
      }
    });
}
