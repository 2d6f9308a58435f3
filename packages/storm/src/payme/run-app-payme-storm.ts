import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { skippedResults } from '../provider/skipped-results.js';
import { appPaymeTarget } from './app-payme-target.js';
import {
  type PaymeStormProgress,
  type PaymeStormReport,
  runPaymeStorm,
  selectPaymeScenarios,
} from './run-payme-storm.js';

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
  /** Called when a scenario starts and when it ends (with its result). */
  readonly onProgress?: (event: PaymeStormProgress) => void;
}

/**
 * The Payme storm against an app through its adapter (`payonce storm --adapter FILE --provider payme`): the target
 * is {@link appPaymeTarget}, judged as {@link runPaymeStorm} judges. An adapter without `providers.payme` gets every
 * selected scenario SKIPPED with the reason (never passed), and nothing is sent. Closes the adapter at the end.
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, an empty `key`.
 * @throws {StormTargetUnavailable} the app's Payme endpoint does not answer a CheckTransaction of an unknown id
 *   with -31003 (down, wrong URL, or the key refused).
 * @see docs/storm-your-app.md "Payme".
 */
export async function runAppPaymeStorm(options: AppPaymeStormOptions): Promise<PaymeStormReport> {
  const { app } = options;
  try {
    const payme = app.providers?.payme;
    if (payme === undefined) {
      const reason = `skipped: the app adapter ${app.name} declares no Payme endpoint (providers.payme.merchantUrl)`;
      const counts = { calls: 0, faults: 0, performs: 0, paidTransitions: 0, fulfilments: 0 };
      return Object.freeze({
        provider: 'payme',
        target: `app ${app.name}`,
        merchantUrl: '',
        startedAtMs: Date.now(),
        durationMs: 0,
        passed: true,
        results: Object.freeze(skippedResults(selectPaymeScenarios(options.only), reason, counts)),
      });
    }
    const target = appPaymeTarget(app, options.key);
    return await runPaymeStorm({
      target,
      only: options.only,
      timeoutMs: options.timeoutMs,
      concurrency: options.concurrency,
      onProgress: options.onProgress,
    });
  } finally {
    await app.close?.();
  }
}
