import { randomUUID } from 'node:crypto';
import { checkUzumTarget } from '@payonce/sandbox/internal/uzum/uzum-target.js';
import { callUzum, UZUM_CODES } from '@payonce/sandbox/uzum';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { ProviderStormProgress } from '../provider/provider-scenario.js';
import {
  type ProviderStormReport,
  type ProviderStormRunOptions,
  runProviderStorm,
} from '../provider/run-provider-storm.js';
import { StormTargetUnavailable } from '../run-storm.js';
import { ALL_UZUM_SCENARIOS } from './all-uzum-scenarios.js';
import type { UzumScenarioResult } from './uzum-scenario.js';
import { UzumScenarioRun } from './uzum-scenario-run.js';
import { describeUzumExchange, uzumCodeOf } from './uzum-storm-context.js';
import type { UzumStormTarget } from './uzum-storm-target.js';

/** Options of {@link runUzumStorm}: the target, and `only`, `timeoutMs`, `concurrency`, `onProgress`. */
export interface UzumStormOptions extends ProviderStormRunOptions<UzumScenarioResult> {
  /** The merchant under test (`serviceUzumTarget` for a payonce service, or your own). */
  readonly target: UzumStormTarget;
}

/** What `runUzumStorm` reports while it runs. */
export type UzumStormProgress = ProviderStormProgress<UzumScenarioResult>;

/** The result of one Uzum storm run (also the JSON report of `payonce storm --provider uzum --report`). */
export type UzumStormReport = ProviderStormReport<'uzum', UzumScenarioResult>;

/** /status of a transId no one created must answer 10014: the webhooks are there and take the credentials. */
async function preflight(target: UzumStormTarget): Promise<void> {
  const exchange = await callUzum(
    { ...target, callTimeoutMs: 10_000 },
    { operation: 'status', fields: { transId: randomUUID() } },
  );
  const code = uzumCodeOf(exchange);
  if (code === UZUM_CODES.transactionNotFound) return;
  const why =
    code === UZUM_CODES.accessDenied
      ? 'refused the credentials (10001): give the login and password the merchant was started with'
      : `answered a /status of an unknown transId with ${describeUzumExchange(exchange)}, expected FAILED 10014`;
  throw new StormTargetUnavailable(`the Uzum endpoint ${target.merchantUrl} ${why}`);
}

function checkTarget(target: UzumStormTarget): void {
  if (typeof target !== 'object' || target === null) throw new InvalidOption('target', 'must be an Uzum storm target');
  checkUzumTarget(target);
  if (typeof target.createOrder !== 'function' || typeof target.readOrder !== 'function') {
    throw new InvalidOption('target', 'must have createOrder(amountTiyin) and readOrder(params)');
  }
}

/**
 * Runs the Uzum storm: plays Uzum Bank (the sandbox's payer, with lost answers, timeouts, duplicates, parallel
 * copies, /status polling, out-of-order and forged calls, a kill, reverses before and after confirm, a job re-run)
 * against a merchant's Merchant API webhooks and judges every order each scenario touched: at most one confirmed
 * transaction, one paid transition, one fulfilment; Uzum Bank's ledger equal to the money the merchant holds;
 * nothing lost. Scenarios the target cannot express are skipped with the reason. The run does not throw for a
 * failing target.
 * @throws {InvalidOption} a bad target, `only`, `timeoutMs` (1 000…600 000) or `concurrency` (1…10).
 * @throws {StormTargetUnavailable} /status of an unknown transId is not answered FAILED 10014 (down, wrong URL, or
 *   the credentials refused).
 * @see docs/storm.md "Uzum storm"; https://developer.uzumbank.uz/en/merchant/
 */
export async function runUzumStorm(options: UzumStormOptions): Promise<UzumStormReport> {
  checkTarget(options.target);
  const { target } = options;
  return runProviderStorm(
    {
      provider: 'uzum',
      name: 'Uzum',
      all: ALL_UZUM_SCENARIOS,
      description: target.description,
      endpoint: target.merchantUrl,
      secrets: [target.password],
      preflight: () => preflight(target),
      open: (scenario, timeoutMs) => new UzumScenarioRun(scenario, target, timeoutMs),
    },
    options,
  );
}
