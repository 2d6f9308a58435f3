import { callPayme } from '@payonce/sandbox/internal/payme/payme-rpc.js';
import { newPaymeId, PAYME_CODES } from '@payonce/sandbox/payme';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { ProviderStormProgress } from '../provider/provider-scenario.js';
import { intIn, runProviderScenarios, selectProviderScenarios } from '../provider/run-provider-scenarios.js';
import { StormTargetUnavailable } from '../run-storm.js';
import { ALL_PAYME_SCENARIOS } from './all-payme-scenarios.js';
import type { PaymeScenario, PaymeScenarioResult } from './payme-scenario.js';
import { PaymeScenarioRun } from './payme-scenario-run.js';
import { codeOf, describeExchange } from './payme-storm-context.js';
import type { PaymeStormTarget } from './payme-storm-target.js';

/** Options of {@link runPaymeStorm}. */
export interface PaymeStormOptions {
  /** The merchant under test (`servicePaymeTarget` for a payonce service, or your own). */
  readonly target: PaymeStormTarget;
  /** Scenario numbers to run (1…11). @default all */
  readonly only?: readonly number[];
  /** Budget of one scenario in ms: every wait and call must end within it. @default 30_000 */
  readonly timeoutMs?: number;
  /** Scenarios run at the same time (8 and 9, which kill the target or move its clock, run alone, last). @default 4 */
  readonly concurrency?: number;
  /**
   * How long after the scenarios (the concurrent ones, then the ones run alone) every order they touched is judged
   * again, ms: a problem that came later (a background job repeating an effect) fails its scenario "after the run".
   * @default 1_000
   */
  readonly settleMs?: number;
  /** Called when a scenario starts and when it ends (with its result). */
  readonly onProgress?: (event: PaymeStormProgress) => void;
  /** Stops the run when it aborts: no further scenario starts, the running ones stop waiting, the run rejects. */
  readonly signal?: AbortSignal;
}

/** What `runPaymeStorm` reports while it runs (as `StormProgress`, with a Payme result). */
export type PaymeStormProgress = ProviderStormProgress<PaymeScenarioResult>;

/** The result of one Payme storm run (also the JSON report of `payonce storm --provider payme --report`). */
export interface PaymeStormReport {
  readonly provider: 'payme';
  /** The target's description and its Merchant API URL (never the key). */
  readonly target: string;
  readonly merchantUrl: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** True when no scenario failed (skipped ones do not count as failures). */
  readonly passed: boolean;
  readonly results: readonly PaymeScenarioResult[];
}

/** The Payme scenarios `only` selects, by number. @throws {InvalidOption} an unknown number, or an empty list. */
export function selectPaymeScenarios(only: readonly number[] | undefined): PaymeScenario[] {
  return selectProviderScenarios(ALL_PAYME_SCENARIOS, only, 'Payme');
}

/** CheckTransaction of an id no one created must answer -31003: the endpoint is there and takes the key. */
async function preflight(target: PaymeStormTarget): Promise<void> {
  const exchange = await callPayme(
    { merchantUrl: target.merchantUrl, key: target.key, callTimeoutMs: 10_000 },
    { method: 'CheckTransaction', params: { id: newPaymeId() } },
  );
  const code = codeOf(exchange);
  if (code === PAYME_CODES.transactionNotFound) return;
  const why =
    code === PAYME_CODES.insufficientPrivilege
      ? 'refused the key (-32504): give the cashbox key the merchant was started with'
      : `answered a CheckTransaction of an unknown id with ${describeExchange(exchange)}, expected -31003`;
  throw new StormTargetUnavailable(`the Payme endpoint ${target.merchantUrl} ${why}`);
}

function checkTarget(target: PaymeStormTarget): void {
  if (typeof target !== 'object' || target === null) throw new InvalidOption('target', 'must be a Payme storm target');
  let url: URL | null = null;
  try {
    url = new URL(target.merchantUrl);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidOption('target.merchantUrl', 'must be an http(s) URL');
  }
  if (typeof target.key !== 'string' || target.key === '') throw new InvalidOption('target.key', 'must be non-empty');
  if (typeof target.createOrder !== 'function' || typeof target.readOrder !== 'function') {
    throw new InvalidOption('target', 'must have createOrder(amount) and readOrder(account)');
  }
}

/**
 * Runs the Payme storm: plays Payme (the sandbox's payer, with lost answers, timeouts, duplicates, parallel
 * copies, out-of-order and forged calls, a kill, the 12-hour timeout, a refund, a job re-run) against a merchant's
 * Merchant API endpoint and judges every order each scenario touched: at most one performed transaction, one paid
 * transition, one fulfilment; Payme's ledger equal to the merchant's GetStatement; nothing lost. Scenarios the
 * target cannot express (no `crashAndRestart`, no `rerunFulfilment`) are skipped with the reason. A scenario that
 * throws or overruns 3 × `timeoutMs` + 10 s fails with the error; the run itself does not throw for a failing target.
 * @throws {InvalidOption} a bad target, `only`, `timeoutMs` (1 000…600 000) or `concurrency` (1…11).
 * @throws {StormTargetUnavailable} the endpoint does not answer a CheckTransaction of an unknown id with -31003
 *   (down, wrong URL, or the key refused).
 * @throws `options.signal.reason` once the signal aborted.
 * @see docs/storm.md "Payme storm"; https://developer.help.paycom.uz/metody-merchant-api/
 */
export async function runPaymeStorm(options: PaymeStormOptions): Promise<PaymeStormReport> {
  checkTarget(options.target);
  const { target } = options;
  const timeoutMs = intIn(options.timeoutMs ?? 30_000, 1_000, 600_000, 'timeoutMs');
  const concurrency = intIn(options.concurrency ?? 4, 1, ALL_PAYME_SCENARIOS.length, 'concurrency');
  const scenarios = selectPaymeScenarios(options.only);
  const startedAtMs = Date.now();
  options.signal?.throwIfAborted();
  await preflight(target);
  const results = await runProviderScenarios({
    scenarios,
    timeoutMs,
    concurrency,
    onProgress: options.onProgress,
    open: (scenario) => new PaymeScenarioRun(scenario, target, timeoutMs),
    signal: options.signal,
    secrets: [target.key],
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
  });
  return Object.freeze({
    provider: 'payme',
    target: target.description,
    merchantUrl: target.merchantUrl,
    startedAtMs,
    durationMs: Date.now() - startedAtMs,
    passed: results.every((r) => r.verdict !== 'fail'),
    results: Object.freeze(results),
  });
}
