/**
 * Renders a run's short summary (`results/<date>.md`) from `BenchResults`: the target table (median of the per-pair
 * ratios with their min–max, clean pairs, goal, met), why each miss is missed, the checks across targets and the host.
 */
import type { BenchResults, TargetResult } from './bench-results.js';
import type { AddedRun, MergedResults } from './merge-results.js';

const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';

const times = (value: number): string => `${value.toFixed(2)}×`;
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** `1.23× (1.10–1.31×)`, or `n/a`. */
export function ratioText(t: Pick<TargetResult, 'ratio'>): string {
  return t.ratio ? `${times(t.ratio.median)} (${t.ratio.min.toFixed(2)}–${times(t.ratio.max)})` : 'n/a';
}

/** `yes`, `**no**` or `—` (reported without a target). */
export function metText(t: Pick<TargetResult, 'met'>): string {
  return t.met === null ? '—' : t.met ? 'yes' : '**no**';
}

/** What the target asks: `≥ 3.00×`, `exactly once`, both, or `—`. */
export function goalText(t: TargetResult): string {
  const parts = [
    ...(t.target.min === null ? [] : [`≥ ${times(t.target.min)}`]),
    ...(t.target.exactlyOnce ? ['handler runs == keys'] : []),
  ];
  return parts.length === 0 ? '— (reported)' : parts.join(', ');
}

function pairsText(t: TargetResult): string {
  const failed = t.pairs.length - t.cleanPairs;
  return `${t.cleanPairs}/${t.pairs.length}${failed > 0 ? ` (${failed} failed)` : ''}`;
}

/** `2026-12-06 13:20 UTC` of an ISO time. */
const minuteText = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * The table at the top: one line per target. A target a later partial run added (`added`, `lib/merge-results.ts`)
 * says when it was measured.
 */
export function targetTable(targets: readonly TargetResult[], added: readonly AddedRun[] = []): string[] {
  const lines = ['| target | id | median A÷B (min–max) | clean pairs | goal | met |', '|---|---|---:|---:|---|---|'];
  const measuredAt = new Map(added.flatMap((run) => run.targetIds.map((id) => [id, run.generatedAt] as const)));
  for (const t of targets) {
    const once = t.exactlyOnce === false ? ' — **handler ran ≠ once per key**' : '';
    const at = measuredAt.get(t.target.id);
    const title = at === undefined ? t.target.title : `${t.target.title} (measured ${minuteText(at)}, below)`;
    lines.push(
      `| ${cell(title)} | \`${t.target.id}\` | ${ratioText(t)} | ${pairsText(t)} | ${goalText(t)}${once} | ${metText(t)} |`,
    );
  }
  return lines;
}

/** What each added run was (`npm run bench -- --only …`, when, how long, the load), one line per run. */
export function addedRunLines(added: readonly AddedRun[]): string[] {
  if (added.length === 0) return [];
  return [
    'Rows added after this run by partial runs (`merge-run.ts`), the same method, measured apart:',
    '',
    ...added.map(
      (run) =>
        `- ${run.targetIds.map((id) => `\`${id}\``).join(', ')}: \`npm run bench -- --only ${run.only.join(',')}\` at ` +
        `${run.generatedAt}, ${num(run.durationSec)} s, load average ${run.loadAverage.start.toFixed(2)} at start and ` +
        `${run.loadAverage.end.toFixed(2)} at end.`,
    ),
    '',
  ];
}

/** Checks across targets: peak RSS of payonce sides (< 200 MB) and exactly-once in every storm target. */
export function checkLines(targets: readonly TargetResult[]): string[] {
  const payonceRuns = targets.flatMap((t) =>
    t.pairs.flatMap(
      (p) =>
        [
          [t.target.a, p.a],
          [t.target.b, p.b],
        ] as const,
    ),
  );
  let peak: { bytes: number; side: string } | null = null;
  for (const [spec, run] of payonceRuns) {
    const bytes = run.result?.peakRssBytes;
    if (bytes === undefined || !spec.id.includes('/payonce')) continue;
    if (peak === null || bytes > peak.bytes) peak = { bytes, side: spec.id };
  }
  const storms = targets.filter((t) => t.target.exactlyOnce);
  const wrong = storms.filter((t) => t.exactlyOnce !== true);
  const lines = ['| check | measured | met |', '|---|---|---|'];
  if (peak) {
    lines.push(
      `| peak RSS of every payonce side's process < 200 MB (compiled payonce, warm-up included) | ${num(peak.bytes / 2 ** 20)} MB (\`${peak.side}\`) | ${peak.bytes < 200 * 2 ** 20 ? 'yes' : '**no**'} |`,
    );
  }
  if (storms.length > 0) {
    lines.push(
      `| handler runs == keys in every pair of every storm target | ${wrong.length === 0 ? `all exact (${storms.length} targets)` : `wrong or unchecked in ${wrong.map((t) => `\`${t.target.id}\``).join(', ')}`} | ${wrong.length === 0 ? 'yes' : '**no**'} |`,
    );
  }
  return lines.length > 2 ? lines : [];
}

/**
 * How the pairs of `results` were ordered, in words: the side that ran first flipped from pair to pair (pairs that
 * record `first`), or A always ran first (older result files).
 */
export function pairOrderText(results: BenchResults): string {
  const flipped = results.targets.some((t) => t.pairs.some((pair) => pair.first === 'b'));
  return flipped ? 'A and B one after the other, the side that runs first flipping from pair to pair' : 'A then B';
}

/** Inputs of `renderSummary` besides the results. */
export interface SummaryInput {
  /** Why a target is missed, by target id (printed only when it is missed), with a link to its note. */
  readonly causes: Readonly<Record<string, string>>;
  /** The file name of the run's JSON, linked from the summary. */
  readonly jsonFile: string;
}

/**
 * A run's short markdown summary (`results/<date>.md`): the run, the target table (with the rows later partial runs
 * added, and when they ran), the misses with why, the checks across targets, PostgreSQL's commit cost and the host. Every pair and side is in the JSON next to it.
 */
export function renderSummary(results: MergedResults, input: SummaryInput): string {
  const date = results.generatedAt.slice(0, 10);
  const how = results.only ? `\`npm run bench -- --only ${results.only.join(',')}\`` : '`npm run bench`';
  const out: string[] = [`# payonce bench, ${date}`, ''];
  out.push(
    `${how}${results.quick ? ' (BENCH_QUICK=1 smoke run)' : ''} at ${results.generatedAt}, ${num(results.durationSec)} s, ` +
      `load average ${results.loadAverage.start.toFixed(2)} at start and ${results.loadAverage.end.toFixed(2)} at end. ` +
      `Each ratio is side A ÷ side B, the median of the per-pair ratios (${pairOrderText(results)}, each side in a fresh ` +
      'process) with their min–max; a target is met when every pair ran cleanly and the median clears its goal. ' +
      `Every pair and side: [${input.jsonFile}](${input.jsonFile})${results.limits?.markdown ? `; this machine's physical limits in the same run: [${input.jsonFile.replace(/\.json$/, '-limits.md')}](${input.jsonFile.replace(/\.json$/, '-limits.md')})` : ''}; how the bench works: [README](../README.md).`,
    '',
    ...targetTable(results.targets, results.added),
    '',
    ...addedRunLines(results.added ?? []),
  );
  const judged = results.targets.filter((t) => t.met !== null);
  const missed = judged.filter((t) => t.met === false);
  out.push(
    `${judged.length - missed.length} of ${judged.length} targets met; ${results.targets.length - judged.length} ratios reported without a target.`,
    '',
  );
  for (const t of missed) {
    const why = input.causes[t.target.id] ?? t.problems[0] ?? t.stoppedEarly ?? 'see its pairs in the JSON';
    out.push(`- \`${t.target.id}\` missed: ${cell(why)}`);
  }
  if (missed.length > 0) out.push('');
  if (results.problems.length > 0) out.push('Not in this run:', '', ...results.problems.map((p) => `- ${p}`), '');
  out.push(...checkLines(results.targets), '');
  const costs = results.postgresCosts;
  if (costs) {
    out.push(
      `PostgreSQL in this run: \`select 1\` ${num(costs.roundTripsPerSec)}/s, autocommit INSERT ${num(costs.autocommitInsertsPerSec)}/s ` +
        `(8 callers), so a commit costs about ${costs.commitInRoundTrips.toFixed(1)} round trips (C) and a one-commit design ` +
        `reaches at most 2 × (1 + C) ÷ (5 + C) = ${times(costs.oneCommitCeiling)} against the bare minimum (\`postgres-tx\`).`,
      '',
    );
  }
  if (results.versions) {
    const v = results.versions;
    const servers = Object.entries(v.servers).map(([name, server]) => `${name} ${server}`);
    out.push(`Host: Node ${v.node}, ${v.os}, ${v.cpus}, ${v.memoryGiB} GiB RAM; ${servers.join('; ')}.`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
