import type { ProviderScenario, ProviderStormProgress } from './provider-scenario.js';
import {
  intIn,
  runProviderScenarios,
  type ScenarioRunHandle,
  selectProviderScenarios,
} from './run-provider-scenarios.js';

/** The result of one Click or Uzum storm run (also the JSON report of `payonce storm --provider click|uzum`). */
export interface ProviderStormReport<P extends string, R> {
  readonly provider: P;
  /** The target's description (never a secret). */
  readonly target: string;
  /** Where the provider's calls went (the Prepare URL, the webhook base URL). */
  readonly endpoint: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** True when no scenario failed (skipped ones do not count as failures). */
  readonly passed: boolean;
  readonly results: readonly R[];
}

/** The options every provider storm takes (`runClickStorm`, `runUzumStorm`). */
export interface ProviderStormRunOptions<R> {
  /** Scenario numbers to run. @default all */
  readonly only?: readonly number[];
  /** Budget of one scenario in ms: every wait and call must end within it. @default 30_000 */
  readonly timeoutMs?: number;
  /** Scenarios run at the same time (those that kill the target run alone, last). @default 4 */
  readonly concurrency?: number;
  /**
   * How long after the scenarios (the concurrent ones, then the ones run alone) every order they touched is judged
   * again, ms: a problem that came later (a background job repeating an effect) fails its scenario "after the run".
   * @default 1_000
   */
  readonly settleMs?: number;
  /** Called when a scenario starts and when it ends (with its result). */
  readonly onProgress?: (event: ProviderStormProgress<R>) => void;
  /**
   * Stops the run when it aborts (e.g. the app under test exited): no further scenario starts, the running ones stop
   * waiting, and the storm rejects with `signal.reason`.
   */
  readonly signal?: AbortSignal;
}

/** What a provider gives {@link runProviderStorm}. */
export interface ProviderStormSpec<P extends string, Ctx, R> {
  readonly provider: P;
  /** `Click`, `Uzum`: for messages. */
  readonly name: string;
  readonly all: readonly ProviderScenario<Ctx, R>[];
  readonly description: string;
  readonly endpoint: string;
  /** The credentials the run was given: never in a result (see `ProviderScenariosOptions.secrets`). */
  readonly secrets: readonly string[];
  /** Proves the endpoint answers and takes the credentials. @throws {StormTargetUnavailable} it does not. */
  preflight(): Promise<void>;
  open(scenario: ProviderScenario<Ctx, R>, timeoutMs: number): Ctx & ScenarioRunHandle<R>;
}

/**
 * Runs a provider storm: checks the options, selects the scenarios, runs the preflight, then every scenario
 * (`concurrency` at a time, the `alone` ones last) and returns the report.
 * @throws {InvalidOption} `only` (an unknown number, empty), `timeoutMs` (1 000…600 000), `concurrency` (1…n),
 *   `settleMs` (0…600 000).
 * @throws {StormTargetUnavailable} from the preflight.
 * @throws `options.signal.reason` once the signal aborted.
 */
export async function runProviderStorm<P extends string, Ctx, R extends { readonly id: number; verdict: string }>(
  spec: ProviderStormSpec<P, Ctx, R>,
  options: ProviderStormRunOptions<R>,
): Promise<ProviderStormReport<P, R>> {
  const timeoutMs = intIn(options.timeoutMs ?? 30_000, 1_000, 600_000, 'timeoutMs');
  const concurrency = intIn(options.concurrency ?? 4, 1, spec.all.length, 'concurrency');
  const scenarios = selectProviderScenarios(spec.all, options.only, spec.name);
  const startedAtMs = Date.now();
  options.signal?.throwIfAborted();
  await spec.preflight();
  const results = await runProviderScenarios({
    scenarios,
    timeoutMs,
    concurrency,
    onProgress: options.onProgress,
    open: (scenario) => spec.open(scenario, timeoutMs),
    signal: options.signal,
    secrets: spec.secrets,
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
  });
  return Object.freeze({
    provider: spec.provider,
    target: spec.description,
    endpoint: spec.endpoint,
    startedAtMs,
    durationMs: Date.now() - startedAtMs,
    passed: results.every((r) => r.verdict !== 'fail'),
    results: Object.freeze(results),
  });
}
