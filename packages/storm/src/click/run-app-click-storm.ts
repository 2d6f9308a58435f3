import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { runAppProviderStorm } from '../provider/run-app-provider-storm.js';
import type { ProviderStormRunOptions } from '../provider/run-provider-storm.js';
import { ALL_CLICK_SCENARIOS } from './all-click-scenarios.js';
import { appClickTarget } from './app-click-target.js';
import type { ClickScenarioResult } from './click-scenario.js';
import { type ClickStormReport, runClickStorm } from './run-click-storm.js';

/** Options of {@link runAppClickStorm}: the app, the Click credentials it was given, and the run's options. */
export interface AppClickStormOptions extends ProviderStormRunOptions<ClickScenarioResult> {
  /** The app under test, through its storm adapter (its `providers.click` names the Prepare and Complete URLs). */
  readonly app: StormAppAdapter;
  /** The service id the app was given (`PAYONCE_STORM_CLICK_SERVICE_ID`). */
  readonly serviceId: number;
  /** The SECRET_KEY the app was given (`PAYONCE_STORM_CLICK_SECRET_KEY`). */
  readonly secretKey: string;
}

/**
 * The Click storm against an app through its adapter (`payonce storm --adapter FILE --provider click`): the target
 * is {@link appClickTarget}, judged as {@link runClickStorm} judges; run by `runAppProviderStorm` (an adapter
 * without `providers.click` gets every selected scenario SKIPPED with the reason, and nothing is sent; the adapter
 * is closed at the end).
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, a bad service id or secret key.
 * @throws {StormTargetUnavailable} the app's Prepare URL does not answer a Prepare of an unknown order with -5.
 * @see docs/storm-your-app.md "Provider storms against your app".
 */
export function runAppClickStorm(options: AppClickStormOptions): Promise<ClickStormReport> {
  const { app } = options;
  return runAppProviderStorm(app, options.only, {
    provider: 'click',
    name: 'Click',
    declared: app.providers?.click !== undefined,
    lacking: 'no Click endpoints (providers.click)',
    scenarios: ALL_CLICK_SCENARIOS,
    zero: { calls: 0, faults: 0, completes: 0, paidTransitions: 0, fulfilments: 0 },
    skipped: (common) => ({ ...common, endpoint: '' }),
    run: () => runClickStorm({ ...options, target: appClickTarget(app, options.serviceId, options.secretKey) }),
  });
}
