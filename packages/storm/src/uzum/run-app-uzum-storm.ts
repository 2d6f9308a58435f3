import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { runAppProviderStorm } from '../provider/run-app-provider-storm.js';
import type { ProviderStormRunOptions } from '../provider/run-provider-storm.js';
import { ALL_UZUM_SCENARIOS } from './all-uzum-scenarios.js';
import { type AppUzumCredentials, appUzumTarget } from './app-uzum-target.js';
import { runUzumStorm, type UzumStormReport } from './run-uzum-storm.js';
import type { UzumScenarioResult } from './uzum-scenario.js';

/** Options of {@link runAppUzumStorm}: the app, the Uzum credentials it was given, and the run's options. */
export interface AppUzumStormOptions extends ProviderStormRunOptions<UzumScenarioResult>, AppUzumCredentials {
  /** The app under test, through its storm adapter (its `providers.uzum` names the webhook base URL). */
  readonly app: StormAppAdapter;
}

/**
 * The Uzum storm against an app through its adapter (`payonce storm --adapter FILE --provider uzum`): the target
 * is {@link appUzumTarget}, judged as {@link runUzumStorm} judges; run by `runAppProviderStorm` (an adapter without
 * `providers.uzum` gets every selected scenario SKIPPED with the reason, and nothing is sent; the adapter is closed
 * at the end).
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, bad credentials.
 * @throws {StormTargetUnavailable} the app's /status of an unknown transId is not answered FAILED 10014.
 * @see docs/storm-your-app.md "Provider storms against your app".
 */
export function runAppUzumStorm(options: AppUzumStormOptions): Promise<UzumStormReport> {
  const { app } = options;
  return runAppProviderStorm(app, options.only, {
    provider: 'uzum',
    name: 'Uzum',
    declared: app.providers?.uzum !== undefined,
    lacking: 'no Uzum endpoint (providers.uzum.merchantUrl)',
    scenarios: ALL_UZUM_SCENARIOS,
    zero: { calls: 0, faults: 0, confirms: 0, paidTransitions: 0, fulfilments: 0 },
    skipped: (common) => ({ ...common, endpoint: '' }),
    run: () => runUzumStorm({ ...options, target: appUzumTarget(app, options) }),
  });
}
