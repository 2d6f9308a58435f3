import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { sandboxCountOf, serviceIdOf, valueAmountPairs } from './sandbox-options.js';
import { millis } from './serve.js';

/** Options of `payonce sandbox uzum` as commander parses them. */
export interface SandboxUzumOptions {
  check?: string;
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
  const { runUzumAcceptance, formatAcceptanceReport } = await loadUzum();
  const report = await runUzumAcceptance({ ...target, orders });
  for (const line of formatAcceptanceReport(report)) io.out(line);
  if (!report.passed) {
    const failed = report.checks.filter((c) => !c.passed).length;
    throw new Error(`${failed} Uzum acceptance check(s) failed against ${target.merchantUrl}`);
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

function targetOf(options: SandboxUzumOptions): UzumCliTarget {
  if ((options.check === undefined) === (options.merchantUrl === undefined)) {
    throw new CliUsageError('give exactly one of --check URL and --merchant-url URL');
  }
  const login = options.login ?? process.env.UZUM_LOGIN;
  const password = options.password ?? process.env.UZUM_PASSWORD;
  if (login === undefined || login === '') throw new CliUsageError('--login (or UZUM_LOGIN) is required');
  if (password === undefined || password === '') throw new CliUsageError('--password (or UZUM_PASSWORD) is required');
  if (options.serviceId === undefined) throw new CliUsageError('--service-id is required');
  const merchantUrl = (options.check ?? options.merchantUrl) as string;
  return { merchantUrl, login, password, serviceId: options.serviceId, callTimeoutMs: options.callTimeoutMs };
}

/**
 * Registers `payonce sandbox uzum` under `sandbox`: plays Uzum Bank against a merchant's Merchant API webhooks
 * (`<URL>/check`, `/create`, `/confirm`, `/reverse`, `/status`). `--check URL` runs the acceptance battery
 * (`runUzumAcceptance`) and prints a pass/fail table, exiting 1 when a check failed; `--merchant-url URL` pays
 * `--count` orders with `--inject` faults, printing each outcome and the ledger, exiting 1 when an answer broke the
 * protocol or a payment did not end as expected. Both need `--login`, `--password` (or `UZUM_LOGIN`,
 * `UZUM_PASSWORD`), `--service-id` and `--orders`. Usage errors exit 2.
 * @see docs/sandbox.md "Uzum sandbox"; https://developer.uzumbank.uz/en/merchant/
 */
export function registerSandboxUzum(sandbox: Command, io: CliIo): void {
  sandbox
    .command('uzum')
    .description("play Uzum Bank against a merchant's Merchant API webhooks: the acceptance battery or payments")
    .option('--check <url>', 'run the acceptance battery against the webhooks under this URL')
    .option('--merchant-url <url>', 'pay orders through the webhooks under this URL, as Uzum Bank does')
    .option('--login <login>', 'the Basic login; default: the UZUM_LOGIN environment variable')
    .option('--password <password>', 'the Basic password; default: the UZUM_PASSWORD environment variable')
    .option('--service-id <id>', 'your Uzum serviceId', serviceIdOf)
    .option('--param-field <name>', 'the params field of --orders VALUE:AMOUNT', 'account')
    .option('--orders <list>', 'payable orders: VALUE:AMOUNT,… (amount in tiyin)')
    .option('--count <n>', 'how many payments --merchant-url makes (orders reused in turn)', sandboxCountOf, 1)
    .option('--inject <faults>', 'faults while paying: lost-answer,timeout,duplicate=N,parallel=N,reverse')
    .option(
      '--call-timeout-ms <ms>',
      'how long one call waits for its answer (default 10000)',
      millis('--call-timeout-ms', 1),
    )
    .action(async (options: SandboxUzumOptions) => {
      const target = targetOf(options);
      if (options.orders === undefined) {
        throw new CliUsageError('--orders is required: the orders your endpoint will accept');
      }
      const orders = valueAmountPairs(options.orders).map((o) => ({
        params: { [options.paramField]: o.value },
        amountTiyin: o.amount,
      }));
      try {
        if (options.check !== undefined) await runCheck(io, target, orders);
        else await runPay(io, target, orders, options);
      } catch (error) {
        if (error instanceof InvalidOption) throw new CliUsageError(error.message);
        throw error;
      }
    });
}
