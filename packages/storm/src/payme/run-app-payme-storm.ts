import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { runAppProviderStorm } from '../provider/run-app-provider-storm.js';
import { ALL_PAYME_SCENARIOS } from './all-payme-scenarios.js';
import { appPaymeTarget } from './app-payme-target.js';
import { type PaymeStormProgress, type PaymeStormReport, runPaymeStorm } from './run-payme-storm.js';

/** Options of {@link runAppPaymeStorm}. */
export interface AppPaymeStormOptions {
  /** The app under test, through its storm adapter (its `providers.payme` names the Merchant API endpoint). */
  readonly app: StormAppAdapter;
  /** The cashbox key the app was given (`PAYONCE_STORM_PAYME_KEY`). */
  readonly key: string;
  /** Scenario numbers to run (1…11). @default all */
  readonly only?: readonly number[];
  /** Budget of one scenario in ms. @default 30_000 */
  readonly timeoutMs?: number;
  /** Scenarios run at the same time. @default 4 */
  readonly concurrency?: number;
  /**
   * How long after the scenarios (the concurrent ones, then the ones run alone) every order they touched is judged
   * again, ms: a problem that came later (a background job repeating an effect) fails its scenario "after the run".
   * @default 1_000
   */
  readonly settleMs?: number;
  /** Called when a scenario starts and when it ends (with its result). */
  readonly onProgress?: (event: PaymeStormProgress) => void;
  /** Stops the run when it aborts (e.g. the app exited): the storm then rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/**
 * The Payme storm against an app through its adapter (`payonce storm --adapter FILE --provider payme`): the target
 * is {@link appPaymeTarget}, judged as {@link runPaymeStorm} judges; run by `runAppProviderStorm` (an adapter
 * without `providers.payme` gets every selected scenario SKIPPED with the reason, and nothing is sent; the adapter
 * is closed at the end).
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, an empty `key`.
 * @throws {StormTargetUnavailable} the app's Payme endpoint does not answer a CheckTransaction of an unknown id
 *   with -31003 (down, wrong URL, or the key refused).
 * @see docs/storm-your-app.md "Payme".
 */
export function runAppPaymeStorm(options: AppPaymeStormOptions): Promise<PaymeStormReport> {
  const { app } = options;
  return runAppProviderStorm(app, options.only, {
    provider: 'payme',
    name: 'Payme',
    declared: app.providers?.payme !== undefined,
    lacking: 'no Payme endpoint (providers.payme.merchantUrl)',
    scenarios: ALL_PAYME_SCENARIOS,
    zero: { calls: 0, faults: 0, performs: 0, paidTransitions: 0, fulfilments: 0 },
    skipped: (common) => ({ ...common, merchantUrl: '' }),
    run: () => runPaymeStorm({ ...options, target: appPaymeTarget(app, options.key) }),
  });
}
