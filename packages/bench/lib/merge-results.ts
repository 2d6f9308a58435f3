/**
 * Rows of a partial run (`npm run bench -- --only …`, written to `out/`) added to a full run's results, so that a
 * target added after the last full run lands in the project's results summary (`results/<date>.md`) with the date
 * and conditions of the run that measured it (`merge-run.ts`).
 */
import type { BenchResults, TargetResult } from './bench-results.js';

/** A partial run whose targets were added to a full run's results: when it ran, and under what load. */
export interface AddedRun {
  readonly generatedAt: string;
  /** The `--only` ids (or patterns) of that run. */
  readonly only: readonly string[];
  readonly durationSec: number;
  readonly loadAverage: { readonly start: number; readonly end: number };
  /** The ids of the targets it added (or replaced). */
  readonly targetIds: readonly string[];
}

/** A full run's results, with the rows later partial runs added. */
export type MergedResults = BenchResults & { readonly added?: readonly AddedRun[] };

/**
 * `into` with every target of `partial` added: a target whose id `into` already has is replaced in place, a new one
 * goes at the end; `added` records the partial run (replacing an earlier record of the same targets). Nothing else of
 * `into` changes (its time, host, limits and problems are the full run's).
 * @throws {Error} `partial` is a smoke run, a full run, or not of the pair-by-pair format; or `into` is not a full run.
 */
export function mergeRun(into: MergedResults, partial: BenchResults): MergedResults {
  if (partial.format !== 2 || into.format !== 2) throw new Error('both runs must be of the pair-by-pair format (2)');
  if (partial.quick) throw new Error('a smoke run (BENCH_QUICK=1) is not merged into the results');
  if (partial.only === null) throw new Error('a full run is a results file of its own, not merged');
  if (into.only !== null || into.quick) throw new Error('rows are merged into a full run only');
  const ids = partial.targets.map((t) => t.target.id);
  if (ids.length === 0) throw new Error('the partial run has no targets');
  const byId = new Map<string, TargetResult>(partial.targets.map((t) => [t.target.id, t]));
  const targets = into.targets.map((t) => byId.get(t.target.id) ?? t);
  const known = new Set(into.targets.map((t) => t.target.id));
  targets.push(...partial.targets.filter((t) => !known.has(t.target.id)));
  const record: AddedRun = {
    generatedAt: partial.generatedAt,
    only: partial.only,
    durationSec: partial.durationSec,
    loadAverage: partial.loadAverage,
    targetIds: ids,
  };
  // An earlier record keeps only the targets this run did not measure again.
  const earlier = (into.added ?? [])
    .map((run) => ({ ...run, targetIds: run.targetIds.filter((id) => !byId.has(id)) }))
    .filter((run) => run.targetIds.length > 0);
  return { ...into, targets, added: [...earlier, record] };
}
