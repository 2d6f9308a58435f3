/**
 * The shape of `results/<date>.json` (and `out/<date>.json`) as written by `npm run bench`: every target as it
 * ran, pair by pair, with its verdict, plus what the run was (time, load, versions, sizes, what was missing).
 * `render.ts` re-renders the run's summary from it.
 */
import type { LimitsSection } from './limits-section.js';
import type { Spread } from './measure.js';
import type { PairRun, TargetVerdict } from './pair-verdict.js';
import type { TargetRun } from './pairs.js';
import type { PostgresCosts } from './pg-costs.js';
import type { PairTarget } from './side-protocol.js';
import type { Versions } from './versions.js';

/** One target in the results: its definition, its pairs and its verdict. */
export interface TargetResult extends TargetVerdict {
  readonly target: PairTarget;
  readonly pairs: readonly PairRun[];
  readonly stoppedEarly: string | null;
  readonly wallSec: number;
}

export interface BenchResults {
  /** 2 since the pair-by-pair harness; version 1 was a format of single rows. */
  readonly format: 2;
  readonly generatedAt: string;
  readonly quick: boolean;
  /** `--only` ids of a partial run; null for a full run. */
  readonly only: readonly string[] | null;
  readonly durationSec: number;
  /** 1-minute load average at start and end (2 cores: above ~2 means other work competed). */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly versions: Versions | null;
  /** Pairs per target and the sides' default durations. */
  readonly sizes: Readonly<Record<string, unknown>>;
  /** Target files that loaded (`file`, number of targets). */
  readonly targetFiles: readonly { readonly file: string; readonly count: number }[];
  /** Target files missing or broken, and other things the run could not do. */
  readonly problems: readonly string[];
  readonly targets: readonly TargetResult[];
  /** `physicalLimits` from limits/limits.ts; null when not asked for (partial runs). */
  readonly limits: LimitsSection | null;
  /** PostgreSQL's round trip vs commit in this run (context of the runInTransaction target), or null. */
  readonly postgresCosts: PostgresCosts | null;
}

/** A target's run as it goes into the results. */
export function targetResult(run: TargetRun): TargetResult {
  return {
    target: run.target,
    pairs: run.pairs,
    ...run.verdict,
    stoppedEarly: run.stoppedEarly,
    wallSec: Math.round(run.wallMs / 100) / 10,
  };
}

/** Median, min and max of `values` that are finite numbers; null when there are none. */
export function finiteSpread(values: readonly (number | undefined)[], of: (v: number[]) => Spread): Spread | null {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return finite.length === 0 ? null : of(finite);
}
