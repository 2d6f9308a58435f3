import type { PaymeStormReport } from '@payonce/storm/internal/payme/run-payme-storm.js';
import type { ClosablePaymeTarget } from '@payonce/storm/internal/payme/service-payme-target.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { loadPaymeStorm } from '../storm-peer.js';
import {
  type LoadedProviderStorm,
  type ProviderRun,
  type ProviderStormCommandOptions,
  runProviderStormCommand,
} from './storm-provider.js';

/** The options of `payonce storm` the Payme storm reads. */
export interface PaymeStormCommandOptions extends ProviderStormCommandOptions {
  readonly paymeKey?: string;
  readonly paymeAccountField?: string;
}

/**
 * `payonce storm --provider payme`: the Payme storm against the service at `--target` (its `POST /payme`, orders
 * through `POST /orders`), with `--payme-key`; prints a progress line per scenario start and end, the table and the
 * summary, and writes the JSON report to `--report` (also when scenarios failed or the endpoint is down).
 * @throws {CliUsageError} no `--payme-key`, `--replica` given, a malformed number, URL or `--only` (exit status 2).
 * @throws {ProviderStormFailed} at least one scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the endpoint does not answer, or refuses the key (exit status 1).
 * @see docs/storm.md "Payme storm".
 */
export async function runPaymeStormCommand(options: PaymeStormCommandOptions, io: CliIo): Promise<PaymeStormReport> {
  const key = options.paymeKey;
  if (key === undefined || key === '') {
    throw new CliUsageError('--provider payme needs the cashbox key: --payme-key or PAYONCE_PAYME_KEY');
  }
  const { target: service, adminToken, paymeAccountField: accountField } = options;
  return runProviderStormCommand(options, io, 'Payme', async () =>
    paymeStormOf(await loadPaymeStorm('payonce storm --provider payme'), { service, key, accountField, adminToken }),
  );
}

/** The Payme storm against the service `params.service`, as `runProviderStormCommand` and the demo run it. */
export function paymeStormOf(
  payme: Awaited<ReturnType<typeof loadPaymeStorm>>,
  params: { service: string; key: string; accountField?: string; adminToken?: string },
) {
  return {
    ...payme,
    target: (timeoutMs: number | undefined) => payme.servicePaymeTarget({ ...params, timeoutMs }),
    run: (target: ClosablePaymeTarget, run: ProviderRun) => payme.runPaymeStorm({ target, ...run }),
    table: payme.formatPaymeStormTable,
    summary: payme.paymeStormSummary,
  } satisfies LoadedProviderStorm<ClosablePaymeTarget, PaymeStormReport>;
}
