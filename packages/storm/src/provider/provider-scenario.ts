import type { DuplicateLevel, Verdict } from '../scenario.js';
import type { StormTimelineEvent } from '../storm-timeline.js';

/** The numbers every provider storm table shows for one scenario (the charge column is the provider's own). */
export interface ProviderScenarioCounts {
  /** Calls sent to the merchant (repeats, copies, forged calls and final reads included). */
  readonly calls: number;
  /** Faults the provider injected (lost answers, timeouts, duplicates, parallel copies, …). */
  readonly faults: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
}

/** The result of one scenario of a provider storm (Payme, Click, Uzum): `C` its counts, `O` its order judgements. */
export interface ProviderScenarioResult<C extends ProviderScenarioCounts, O> {
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  readonly criterion: string;
  readonly verdict: Verdict;
  /** Why it failed or was skipped; empty on a pass. */
  readonly reasons: readonly string[];
  /** What was seen on the way (answers, faults). */
  readonly notes: readonly string[];
  readonly counts: C;
  readonly orders: readonly O[];
  readonly durationMs: number;
  /**
   * What happened to the scenario's orders, in time order (the HTML report's timelines): the storm's orders created
   * (`storm→app`), the provider's calls or deliveries with the app's answers (`provider→app`), what the provider's
   * books moved (`provider`), and the order's counts as the target reported them when they changed (`app`).
   */
  readonly timeline?: readonly StormTimelineEvent[];
}

/**
 * One scenario of a provider storm: `run` plays the provider against the target through `ctx` and ends with the
 * context's `conclude()` (or `skip(reason)`), which judges every order it touched.
 */
export interface ProviderScenario<Ctx, R> {
  /** 1…n, numbered as docs/storm.md lists the provider's scenarios. */
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  /** The pass rule in plain language. */
  readonly criterion: string;
  /** Runs alone, after the others: it kills the target or moves its clock. */
  readonly alone?: boolean;
  run(ctx: Ctx): Promise<R>;
}

/** What every provider storm reports while it runs: a scenario started, or finished with its result `R`. */
export type ProviderStormProgress<R> =
  | {
      readonly kind: 'started';
      readonly id: number;
      readonly name: string;
      readonly index: number;
      readonly total: number;
    }
  | { readonly kind: 'finished'; readonly result: R; readonly index: number; readonly total: number };
