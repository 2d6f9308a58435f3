import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import {
  checkBatteryOrders,
  sandboxCountOf,
  sandboxModeOf,
  sandboxUsageError,
  serviceIdOf,
  valueAmountPairs,
} from './sandbox-options.js';
import { millis } from './serve.js';

/** Options of `payonce sandbox click` as commander parses them. */
export interface SandboxClickOptions {
  check?: string | boolean;
  pay?: string | boolean;
  prepareUrl?: string;
  completeUrl?: string;
  serviceId?: number;
  secretKey?: string;
  orders?: string;
  count: number;
  inject?: string;
  callTimeoutMs?: number;
}

interface ClickCliTarget {
  prepareUrl: string;
  completeUrl: string;
  serviceId: number;
  secretKey: string;
  callTimeoutMs?: number;
}

async function loadClick() {
  return importWithPeers('payonce sandbox click', () => import('@payonce/sandbox/click'));
}

async function runCheck(io: CliIo, target: ClickCliTarget, orders: { merchantTransId: string; amountTiyin: number }[]) {
  const { runClickAcceptance, formatAcceptanceReport, CLICK_ACCEPTANCE_ORDERS } = await loadClick();
  checkBatteryOrders(orders, CLICK_ACCEPTANCE_ORDERS);
  const report = await runClickAcceptance({ ...target, orders });
  // A battery stopped before its first check is its one stop line, printed as the error.
  if (report.checks.length > 0) for (const line of formatAcceptanceReport(report)) io.out(line);
  if (!report.passed) {
    const failed = report.checks.filter((c) => !c.passed).length;
    throw new Error(report.stopped ?? `${failed} Click acceptance check(s) failed against ${target.prepareUrl}`);
  }
}

async function runPay(
  io: CliIo,
  target: ClickCliTarget,
  orders: { merchantTransId: string; amountTiyin: number }[],
  options: SandboxClickOptions,
) {
  const { createClickPayer, parseClickFaults } = await loadClick();
  const faults = parseClickFaults(options.inject ?? '');
  const payer = createClickPayer(target);
  let unfinished = 0;
  for (let i = 0; i < options.count; i++) {
    const result = await payer.pay(orders[i % orders.length] as (typeof orders)[number], faults);
    const expected = faults.failedPayment ? 'cancelled' : 'completed';
    if (result.outcome !== expected) unfinished++;
    const refused =
      result.reason !== undefined
        ? ` (${result.reason})`
        : result.refusedWith === undefined
          ? ''
          : ` (error ${result.refusedWith})`;
    io.out(
      `${result.clickTransId}  ${result.merchantTransId}  ${result.amountTiyin} tiyin  ${result.outcome}${refused}`,
    );
  }
  const ledger = payer.ledger.snapshot();
  io.out(`moved ${ledger.movedTiyin} tiyin in ${ledger.calls} calls; faults injected: ${ledger.faults.length}`);
  for (const m of ledger.mismatches) io.out(`MISMATCH ${m.clickTransId} ${m.call}: ${m.what}`);
  if (ledger.mismatches.length > 0) throw new Error(`${ledger.mismatches.length} answer(s) broke Click's protocol`);
  if (unfinished > 0) throw new Error(`${unfinished} payment(s) refused or left without an answer`);
}

function targetOf(options: SandboxClickOptions, prepareUrl: string): ClickCliTarget {
  if (options.serviceId === undefined) throw new CliUsageError('--service-id is required');
  const secretKey = options.secretKey ?? process.env.CLICK_SECRET_KEY;
  if (secretKey === undefined || secretKey === '') {
    throw new CliUsageError('--secret-key (or CLICK_SECRET_KEY) is required');
  }
  return {
    prepareUrl,
    completeUrl: options.completeUrl ?? prepareUrl,
    serviceId: options.serviceId,
    secretKey,
    callTimeoutMs: options.callTimeoutMs,
  };
}

/** The library options of the Click sandbox and the flags that carry them. */
const CLICK_FLAGS = Object.freeze({
  prepareUrl: '--prepare-url',
  completeUrl: '--complete-url',
  serviceId: '--service-id',
  secretKey: '--secret-key',
  orders: '--orders',
  faults: '--inject',
});

/**
 * Registers `payonce sandbox click` under `sandbox`: plays Click against a merchant's SHOP API Prepare and Complete
 * URLs. `--check URL` (or `--check --prepare-url URL`) runs the acceptance battery (`runClickAcceptance`) and prints
 * a pass/fail table, exiting 1 when a check failed or the battery stopped early (its one line: cannot connect, 404,
 * HTML, the signature or the amount refused); `--pay URL` (or `--pay --prepare-url URL`) pays `--count` orders with
 * `--inject` faults, printing each outcome and the ledger, exiting 1 when an answer broke the protocol or a payment
 * did not end as expected. The URL is the Prepare URL; `--complete-url` defaults to it. Both need `--service-id`,
 * `--secret-key` (or `CLICK_SECRET_KEY`) and `--orders`. Usage errors exit 2.
 * @see docs/sandbox.md "Click sandbox"; https://docs.click.uz/en/click-api-testing/
 */
export function registerSandboxClick(sandbox: Command, io: CliIo): void {
  sandbox
    .command('click')
    .description("play Click against a merchant's SHOP API: the acceptance battery (--check) or payments (--pay)")
    .option('--check [url]', "run Click's acceptance battery against this Prepare URL (or --prepare-url)")
    .option('--pay [url]', 'pay --count orders through this Prepare URL (or --prepare-url), as Click does')
    .option('--prepare-url <url>', 'your Prepare URL (action=0)')
    .option('--complete-url <url>', 'your Complete URL (action=1); default: the Prepare URL')
    .option('--service-id <id>', 'your Click service_id', serviceIdOf)
    .option('--secret-key <key>', 'the service SECRET_KEY; default: the CLICK_SECRET_KEY environment variable')
    .option('--orders <list>', 'payable orders: MERCHANT_TRANS_ID:AMOUNT,… (amount in tiyin)')
    .option('--count <n>', 'how many payments --pay makes (orders reused in turn)', sandboxCountOf, 1)
    .option('--inject <faults>', 'faults while paying: lost-answer,timeout,duplicate=N,parallel=N,failed-payment')
    .option(
      '--call-timeout-ms <ms>',
      'how long one call waits for its answer (default 10000)',
      millis('--call-timeout-ms', 1),
    )
    .action(async (options: SandboxClickOptions) => {
      const { mode, url } = sandboxModeOf(options, '--prepare-url', options.prepareUrl, false);
      const target = targetOf(options, url);
      if (options.orders === undefined) {
        throw new CliUsageError('--orders is required: the orders your endpoint will accept');
      }
      const orders = valueAmountPairs(options.orders).map((o) => ({ merchantTransId: o.value, amountTiyin: o.amount }));
      try {
        if (mode === 'check') await runCheck(io, target, orders);
        else await runPay(io, target, orders, options);
      } catch (error) {
        if (error instanceof InvalidOption) throw sandboxUsageError(error, CLICK_FLAGS);
        throw error;
      }
    });
}
