import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { selectProviderScenarios } from '../provider/run-provider-scenarios.js';
import type { ProviderStormRunOptions } from '../provider/run-provider-storm.js';
import { skippedResults } from '../provider/skipped-results.js';
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
 * is {@link appUzumTarget}, judged as {@link runUzumStorm} judges. An adapter without `providers.uzum` gets every
 * selected scenario SKIPPED with the reason (never passed), and nothing is sent. Closes the adapter at the end.
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, bad credentials.
 * @throws {StormTargetUnavailable} the app's /status of an unknown transId is not answered FAILED 10014.
 * @see docs/storm-your-app.md "Provider storms against your app".
 */
export async function runAppUzumStorm(options: AppUzumStormOptions): Promise<UzumStormReport> {
  const { app } = options;
  try {
    if (app.providers?.uzum === undefined) {
      const reason = `skipped: the app adapter ${app.name} declares no Uzum endpoint (providers.uzum.merchantUrl)`;
      const counts = { calls: 0, faults: 0, confirms: 0, paidTransitions: 0, fulfilments: 0 };
      const selected = selectProviderScenarios(ALL_UZUM_SCENARIOS, options.only, 'Uzum');
      return Object.freeze({
        provider: 'uzum',
        target: `app ${app.name}`,
        endpoint: '',
        startedAtMs: Date.now(),
        durationMs: 0,
        passed: true,
        results: Object.freeze(skippedResults(selected, reason, counts)),
      });
    }
    const target = appUzumTarget(app, options);
    return await runUzumStorm({ ...options, target });
  } finally {
    await app.close?.();
  }
}
