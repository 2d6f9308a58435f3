import type { ProviderScenarioCounts, ProviderScenarioResult } from './provider-scenario.js';
import type { ScenarioInfo } from './provider-scenario-run.js';

/**
 * One `skip` result per scenario, each with `reason` and the zero `counts`: what a provider storm reports when the
 * target cannot take the provider at all (an app adapter without that provider's endpoint). Pure.
 */
export function skippedResults<C extends ProviderScenarioCounts>(
  scenarios: readonly ScenarioInfo[],
  reason: string,
  counts: C,
): ProviderScenarioResult<C, never>[] {
  return scenarios.map(({ id, name, defends, criterion }) =>
    Object.freeze({
      id,
      name,
      defends,
      criterion,
      verdict: 'skip' as const,
      reasons: Object.freeze([reason]),
      notes: Object.freeze([]),
      counts: Object.freeze({ ...counts }),
      orders: Object.freeze([]),
      durationMs: 0,
    }),
  );
}
