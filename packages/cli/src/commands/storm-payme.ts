import { writeFile } from 'node:fs/promises';
import type { PaymeStormReport } from '@payonce/storm/internal/payme/run-payme-storm.js';
import type { servicePaymeTarget } from '@payonce/storm/internal/payme/service-payme-target.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { loadPaymeStorm } from '../storm-peer.js';
import { paymePlanLine, progressLine } from '../storm-progress.js';

/** `payonce storm --provider payme` ran and at least one scenario failed (exit status 1); `failed` lists them. */
export class PaymeStormFailed extends Error {
  constructor(readonly failed: readonly number[]) {
    super(`Payme scenario(s) failed: ${failed.join(', ')}`);
    this.name = 'PaymeStormFailed';
  }
}

/** The options of `payonce storm` the Payme storm reads. */
export interface PaymeStormCommandOptions {
  readonly target: string;
  readonly adminToken?: string;
  readonly only?: string;
  readonly report?: string;
  readonly timeoutMs?: string;
  readonly concurrency?: string;
  readonly replica?: readonly string[];
  readonly paymeKey?: string;
  readonly paymeAccountField?: string;
}

function listOf(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d{1,2}$/.test(part))) {
    throw new CliUsageError(`--only takes scenario numbers separated by commas (e.g. 1,5,9), got "${value}"`);
  }
  return parts.map(Number);
}

function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliUsageError(`${name} must be a whole number, got "${value}"`);
  return Number(value);
}

/**
 * `payonce storm --provider payme`: the Payme storm against the service at `--target` (its `POST /payme`, orders
 * through `POST /orders`), with `--payme-key`; prints a progress line per scenario start and end, the table and the
 * summary, and writes the JSON report to `--report` (also when scenarios failed or the endpoint is down).
 * @throws {CliUsageError} no `--payme-key`, `--replica` given, a malformed number, URL or `--only` (exit status 2).
 * @throws {PaymeStormFailed} at least one scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the endpoint does not answer, or refuses the key (exit status 1).
 * @see docs/storm.md "Payme storm".
 */
export async function runPaymeStormCommand(options: PaymeStormCommandOptions, io: CliIo): Promise<PaymeStormReport> {
  if (options.paymeKey === undefined || options.paymeKey === '') {
    throw new CliUsageError('--provider payme needs the cashbox key: --payme-key or PAYONCE_PAYME_KEY');
  }
  if (options.replica !== undefined && options.replica.length > 0) {
    throw new CliUsageError('--replica is for the Stripe storm; the Payme storm drives one service (--target)');
  }
  const only = options.only === undefined ? undefined : listOf(options.only);
  const timeoutMs = intOption(options.timeoutMs, '--timeout-ms');
  const concurrency = intOption(options.concurrency, '--concurrency') ?? 4;
  const {
    runPaymeStorm,
    servicePaymeTarget,
    StormTargetUnavailable,
    formatPaymeStormTable,
    paymeStormSummary,
    aloneIds,
  } = await loadPaymeStorm('payonce storm --provider payme');
  let report: PaymeStormReport;
  let target: ReturnType<typeof servicePaymeTarget> | undefined;
  try {
    target = servicePaymeTarget({
      service: options.target,
      key: options.paymeKey,
      accountField: options.paymeAccountField,
      adminToken: options.adminToken,
      timeoutMs,
    });
    report = await runPaymeStorm({
      target,
      only,
      timeoutMs,
      concurrency,
      onProgress: (event) => {
        if (event.kind === 'started' && event.index === 1)
          io.out(paymePlanLine(event.total, concurrency, aloneIds, only));
        io.out(progressLine(event));
      },
    });
  } catch (error) {
    if (error instanceof InvalidOption) throw new CliUsageError(error.message);
    if (error instanceof StormTargetUnavailable && options.report !== undefined) {
      const failure = { passed: false, error: { code: error.code, message: error.message }, results: [] };
      await writeFile(options.report, `${JSON.stringify(failure, null, 2)}\n`);
      io.out(`report written to ${options.report}`);
    }
    throw error;
  } finally {
    await target?.close();
  }
  io.out('');
  for (const line of formatPaymeStormTable(report).split('\n')) io.out(line);
  io.out('');
  io.out(paymeStormSummary(report));
  if (options.report !== undefined) {
    await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`report written to ${options.report}`);
  }
  const failed = report.results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  if (failed.length > 0) throw new PaymeStormFailed(failed);
  return report;
}
