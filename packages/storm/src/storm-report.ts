import type { ScenarioResult } from './scenario.js';

/** The result of one storm run (also the JSON report of `payonce storm --report`). */
export interface StormReport {
  /** The service base URL (or the app adapter's name) and the sandbox base URL the run used. */
  readonly target: string;
  readonly provider: string;
  /** The seed of every random choice of the run: `--seed` with it replays them. */
  readonly seed: number;
  /**
   * The seed of the sandbox's fault draws (its fault rules' probabilities), derived from `seed` and sent to the
   * sandbox before the first scenario: the same `seed` replays the same injected faults.
   */
  readonly sandboxSeed?: number;
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** True when no scenario failed (skipped ones do not count as failures). */
  readonly passed: boolean;
  /** One result per scenario run, by scenario number. */
  readonly results: readonly ScenarioResult[];
  /**
   * Why the adapter's `close()` failed or did not return within the per-call timeout, when it did: the verdicts
   * stand (every order was judged before), but the app may have left connections or processes behind.
   */
  readonly closeError?: string;
}

/**
 * What `runStorm` reports while it runs: a scenario started, or finished with its result. `index` counts the
 * scenarios started (for `started`) or finished (for `finished`) so far, from 1; `total` is how many will run.
 */
export type StormProgress =
  | {
      readonly kind: 'started';
      readonly id: number;
      readonly name: string;
      readonly index: number;
      readonly total: number;
    }
  | { readonly kind: 'finished'; readonly result: ScenarioResult; readonly index: number; readonly total: number };
