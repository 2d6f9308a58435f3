import { CLICK_CODES, callClick, newClickTransId } from '@payonce/sandbox/click';
import { checkClickTarget } from '@payonce/sandbox/internal/click/click-target.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { ProviderStormProgress } from '../provider/provider-scenario.js';
import {
  type ProviderStormReport,
  type ProviderStormRunOptions,
  runProviderStorm,
} from '../provider/run-provider-storm.js';
import { StormTargetUnavailable } from '../run-storm.js';
import { ALL_CLICK_SCENARIOS } from './all-click-scenarios.js';
import type { ClickScenarioResult } from './click-scenario.js';
import { ClickScenarioRun } from './click-scenario-run.js';
import { clickErrorOf, describeClickExchange } from './click-storm-context.js';
import type { ClickStormTarget } from './click-storm-target.js';

/** Options of {@link runClickStorm}: the target, and `only`, `timeoutMs`, `concurrency`, `onProgress`. */
export interface ClickStormOptions extends ProviderStormRunOptions<ClickScenarioResult> {
  /** The merchant under test (`serviceClickTarget` for a payonce service, or your own). */
  readonly target: ClickStormTarget;
}

/** What `runClickStorm` reports while it runs. */
export type ClickStormProgress = ProviderStormProgress<ClickScenarioResult>;

/** The result of one Click storm run (also the JSON report of `payonce storm --provider click --report`). */
export type ClickStormReport = ProviderStormReport<'click', ClickScenarioResult>;

/** A Prepare of an order no one created must answer -5: the endpoint is there and checks the signature. */
async function preflight(target: ClickStormTarget): Promise<void> {
  const exchange = await callClick(
    { ...target, callTimeoutMs: 10_000 },
    { action: 0, clickTransId: newClickTransId(), merchantTransId: `storm-preflight-${Date.now()}`, amount: '1000' },
  );
  const error = clickErrorOf(exchange);
  if (error === CLICK_CODES.userNotFound) return;
  const why =
    error === CLICK_CODES.signCheckFailed
      ? 'refused the signature (-1): give the service id and SECRET_KEY the merchant was started with'
      : `answered a Prepare of an unknown order with ${describeClickExchange(exchange)}, expected -5`;
  throw new StormTargetUnavailable(`the Click endpoint ${target.prepareUrl} ${why}`);
}

function checkTarget(target: ClickStormTarget): void {
  if (typeof target !== 'object' || target === null) throw new InvalidOption('target', 'must be a Click storm target');
  checkClickTarget(target);
  if (typeof target.createOrder !== 'function' || typeof target.readOrder !== 'function') {
    throw new InvalidOption('target', 'must have createOrder(amountTiyin) and readOrder(merchantTransId)');
  }
}

/**
 * Runs the Click storm: plays Click (the sandbox's payer, with lost answers, timeouts, duplicates, parallel copies,
 * out-of-order and forged calls, a kill, a failed payment, a job re-run) against a merchant's SHOP API Prepare and
 * Complete URLs and judges every order each scenario touched: at most one completed payment, one paid transition,
 * one fulfilment; Click's ledger equal to the money the merchant holds; nothing lost. Scenarios the target cannot
 * express (no `crashAndRestart`, no `rerunFulfilment`) are skipped with the reason. The run does not throw for a
 * failing target.
 * @throws {InvalidOption} a bad target, `only`, `timeoutMs` (1 000…600 000) or `concurrency` (1…10).
 * @throws {StormTargetUnavailable} the Prepare URL does not answer a Prepare of an unknown order with -5 (down,
 *   wrong URL, or the signature refused).
 * @see docs/storm.md "Click storm"; https://docs.click.uz/en/click-api-request/
 */
export async function runClickStorm(options: ClickStormOptions): Promise<ClickStormReport> {
  checkTarget(options.target);
  const { target } = options;
  return runProviderStorm(
    {
      provider: 'click',
      name: 'Click',
      all: ALL_CLICK_SCENARIOS,
      description: target.description,
      endpoint: target.prepareUrl,
      secrets: [target.secretKey],
      preflight: () => preflight(target),
      open: (scenario, timeoutMs) => new ClickScenarioRun(scenario, target, timeoutMs),
    },
    options,
  );
}
