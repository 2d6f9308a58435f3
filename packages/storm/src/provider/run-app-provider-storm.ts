import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import type { ProviderScenarioCounts, ProviderScenarioResult } from './provider-scenario.js';
import type { ScenarioInfo } from './provider-scenario-run.js';
import { selectProviderScenarios } from './run-provider-scenarios.js';
import { skippedResults } from './skipped-results.js';

/** The report a provider storm against an app skipped as a whole, before the provider adds its endpoint field. */
export interface SkippedAppReport<P extends string, C extends ProviderScenarioCounts> {
  readonly provider: P;
  readonly target: string;
  readonly startedAtMs: number;
  readonly durationMs: 0;
  readonly passed: true;
  readonly results: readonly ProviderScenarioResult<C, never>[];
}

/** What a provider gives {@link runAppProviderStorm}: its words, its scenarios, and how to run its storm. */
export interface AppProviderStormSpec<P extends string, C extends ProviderScenarioCounts, Rep> {
  readonly provider: P;
  /** `Payme`, `Click`: for messages. */
  readonly name: string;
  /** True when the adapter declares the provider's endpoint (`adapter.providers.<provider>`). */
  readonly declared: boolean;
  /** What the adapter lacks then, e.g. `no Payme endpoint (providers.payme.merchantUrl)`. */
  readonly lacking: string;
  /** Every scenario of the provider (the skip report lists those `only` selects). */
  readonly scenarios: readonly ScenarioInfo[];
  /** The zero counts of a skipped scenario. */
  readonly zero: C;
  /** The report of a storm skipped as a whole: the common part with the provider's own fields (its endpoint ''). */
  skipped(common: SkippedAppReport<P, C>): Rep;
  /** Runs the provider's storm on the app's target. */
  run(): Promise<Rep>;
}

/**
 * A provider storm against an app through its adapter (`payonce storm --adapter FILE --provider NAME`): `spec.run()`
 * when the adapter declares the provider's endpoint; otherwise every scenario `only` selects is SKIPPED with the
 * reason (never passed), and nothing is sent. Closes the adapter at the end, in every case.
 * @throws {InvalidOption} (`only`) an unknown number, or an empty list; whatever `spec.run()` throws.
 */
export async function runAppProviderStorm<P extends string, C extends ProviderScenarioCounts, Rep>(
  app: StormAppAdapter,
  only: readonly number[] | undefined,
  spec: AppProviderStormSpec<P, C, Rep>,
): Promise<Rep> {
  try {
    if (spec.declared) return await spec.run();
    const reason = `skipped: the app adapter ${app.name} declares ${spec.lacking}`;
    const selected = selectProviderScenarios(spec.scenarios, only, spec.name);
    return spec.skipped(
      Object.freeze({
        provider: spec.provider,
        target: `app ${app.name}`,
        startedAtMs: Date.now(),
        durationMs: 0,
        passed: true,
        results: Object.freeze(skippedResults(selected, reason, spec.zero)),
      }),
    );
  } finally {
    await app.close?.();
  }
}
