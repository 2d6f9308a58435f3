/**
 * How one target of the pair-by-pair harness is judged from its pairs, with no I/O: a pair's
 * ratio is side A's rate ÷ side B's rate in that pair, the target's ratio is the median of the pair ratios (with
 * their min–max), and the target is met only when every pair ran cleanly and the median clears `min`.
 */
import { type Spread, spread } from './measure.js';
import type { PairTarget, SideResult } from './side-protocol.js';

/** One run of one side: its result line, or why there is none. */
export interface SideRun {
  readonly sideId: string;
  /** The parsed `SideResult` (also kept when the side reported errors, so they are shown). */
  readonly result: SideResult | null;
  /** Why the side did not produce a usable result (exit code, timeout, no result line, a failed reset). */
  readonly failure: string | null;
  /** Wall time of the side's process, ms (start-up and warm-up included). */
  readonly wallMs: number;
}

/** One pair: sides A and B, each in a fresh process, one right after the other. */
export interface PairRun {
  readonly a: SideRun;
  readonly b: SideRun;
  /**
   * Which side ran first: the order flips from pair to pair (`pairs.ts`). Absent in results written before the
   * order flipped, where A always ran first.
   */
  readonly first?: 'a' | 'b';
}

/** The verdict on one target. */
export interface TargetVerdict {
  /** Median, min and max of the ratios of the clean pairs; null when no pair was clean. */
  readonly ratio: Spread | null;
  /** Per pair: A ÷ B, or null when that pair was not clean. */
  readonly pairRatios: readonly (number | null)[];
  readonly cleanPairs: number;
  /** What went wrong in the pairs that were not clean (`pair 2 A: exit 1: …`). */
  readonly problems: readonly string[];
  /** Storm targets: handler runs == expected in every pair (false when a side could not be checked); else null. */
  readonly exactlyOnce: boolean | null;
  /** Met, missed, or null for a ratio reported without a target (`min` null and no exactly-once check). */
  readonly met: boolean | null;
}

/** Why `run` cannot be trusted, or null when it can: a failed process, errors inside the side, or no rate. */
export function sideProblem(run: SideRun): string | null {
  if (run.failure !== null) return run.failure;
  const result = run.result;
  if (result === null) return 'no result';
  if (result.errors > 0) return `${result.errors} errors; ${result.firstError ?? 'no message'}`;
  if (!Number.isFinite(result.opsPerSec) || result.opsPerSec <= 0) return `rate ${result.opsPerSec}/s`;
  return null;
}

/** A ÷ B of a clean pair, null otherwise. */
export function pairRatio(pair: PairRun): number | null {
  if (sideProblem(pair.a) !== null || sideProblem(pair.b) !== null) return null;
  return pair.a.result!.opsPerSec / pair.b.result!.opsPerSec;
}

/** Handler runs of one side equal what is correct; sides that do not report them are `null` (not checked). */
export function sideExact(run: SideRun): boolean | null {
  const r = run.result;
  if (r?.expectedHandlerRuns === undefined) return null;
  return r.handlerRuns === r.expectedHandlerRuns;
}

/**
 * The exactly-once check of a storm pair: side A must report handler runs equal to the expected count, and side B
 * too when it reports them at all.
 */
export function pairExact(pair: PairRun): boolean {
  return sideExact(pair.a) === true && sideExact(pair.b) !== false;
}

/** Judges `target` from the pairs it ran (see the module comment for the rule). */
export function judgeTarget(target: Pick<PairTarget, 'min' | 'exactlyOnce'>, pairs: readonly PairRun[]): TargetVerdict {
  const pairRatios = pairs.map(pairRatio);
  const clean = pairRatios.filter((r): r is number => r !== null);
  const problems = pairs.flatMap((pair, i) =>
    (['a', 'b'] as const).flatMap((side) => {
      const problem = sideProblem(pair[side]);
      return problem === null ? [] : [`pair ${i + 1} ${side.toUpperCase()}: ${problem}`];
    }),
  );
  const ratio = clean.length === 0 ? null : spread(clean);
  const allClean = pairs.length > 0 && clean.length === pairs.length;
  const exactlyOnce = target.exactlyOnce === true ? pairs.length > 0 && pairs.every(pairExact) : null;
  const ratioMet = target.min === null ? null : allClean && ratio !== null && ratio.median >= target.min;
  const met =
    ratioMet === null && exactlyOnce === null ? null : ratioMet !== false && exactlyOnce !== false && allClean;
  return { ratio, pairRatios, cleanPairs: clean.length, problems, exactlyOnce, met };
}
