/**
 * Renders `bench/RESULTS.md` from `BenchResults`: the target table on top (median of the per-pair ratios with their
 * min–max, pairs, met), then each group's targets side by side, the cross-target checks, every engineer's note
 * (`bench/notes/*.md`) and the physical limits under "Profiles, limits and explanations", the method, the
 * versions and the sizes.
 */
import type { BenchResults, TargetResult } from './bench-results.js';
import { finiteSpread } from './bench-results.js';
import { spread } from './measure.js';
import type { NoteFile } from './notes-dir.js';
import type { SideRun } from './pair-verdict.js';

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

/** The table at the top: one line per target. */
export function targetTable(targets: readonly TargetResult[]): string[] {
  const lines = ['| target | id | median A÷B (min–max) | clean pairs | goal | met |', '|---|---|---:|---:|---|---|'];
  for (const t of targets) {
    const once = t.exactlyOnce === false ? ' — **handler ran ≠ once per key**' : '';
    lines.push(
      `| ${cell(t.target.title)} | \`${t.target.id}\` | ${ratioText(t)} | ${pairsText(t)} | ${goalText(t)}${once} | ${metText(t)} |`,
    );
  }
  return lines;
}

function sideLine(name: string, label: string, runs: readonly SideRun[]): string {
  const ok = runs.filter((r) => r.failure === null && r.result !== null).map((r) => r.result!);
  const ops = finiteSpread(
    ok.map((r) => r.opsPerSec),
    spread,
  );
  const p50 = finiteSpread(
    ok.map((r) => r.p50Ms),
    spread,
  );
  const p99 = finiteSpread(
    ok.map((r) => r.p99Ms),
    spread,
  );
  const runsText = ok.some((r) => r.expectedHandlerRuns !== undefined)
    ? ok
        .map((r) =>
          r.handlerRuns === r.expectedHandlerRuns
            ? `${r.handlerRuns}`
            : `**${r.handlerRuns}/${r.expectedHandlerRuns}**`,
        )
        .join(', ')
    : '';
  const rss = ok.map((r) => r.peakRssBytes).filter((b): b is number => b !== undefined);
  const errors = ok.reduce((n, r) => n + r.errors, 0);
  return (
    `| ${name} | ${cell(label)} | ${ops ? `${num(ops.median)} (${num(ops.min)}–${num(ops.max)})` : 'n/a'} | ` +
    `${p50 ? num(p50.median, 2) : 'n/a'} | ${p99 ? num(p99.median, 2) : 'n/a'} | ${num(ok.reduce((n, r) => n + r.operations, 0) / Math.max(1, ok.length))} | ` +
    `${runsText} | ${rss.length > 0 ? num(Math.max(...rss) / 2 ** 20) : ''} | ${errors > 0 ? `**${errors}**` : '0'} |`
  );
}

/** One target's section: both sides, the per-pair ratios, and what failed. */
export function targetSection(t: TargetResult, causes: Readonly<Record<string, string>> = {}): string[] {
  const out = [`### ${t.target.title}`, ''];
  out.push(
    `\`${t.target.id}\`: ${ratioText(t)} over ${pairsText(t)} pairs, goal ${goalText(t)}, met ${metText(t)} (${num(t.wallSec)} s).`,
    '',
    '| side | what it runs | ops/s median (min–max) | p50 ms | p99 ms | operations per run | handler runs (each pair) | peak RSS MB | errors |',
    '|---|---|---:|---:|---:|---:|---|---:|---:|',
    sideLine(
      'A',
      t.target.a.label,
      t.pairs.map((p) => p.a),
    ),
    sideLine(
      'B',
      t.target.b.label,
      t.pairs.map((p) => p.b),
    ),
    '',
    `Per-pair A÷B in run order: ${t.pairRatios.map((r) => (r === null ? 'failed' : r.toFixed(3))).join(', ') || 'none'}.`,
  );
  if (t.stoppedEarly) out.push(`${t.stoppedEarly}.`);
  if (t.problems.length > 0) out.push('', ...t.problems.map((p) => `- ${cell(p)}`));
  const cause = causes[t.target.id];
  if (t.met === false && cause) out.push('', `Why it is missed: ${cause}`);
  out.push('');
  return out;
}

/** Checks across targets: peak RSS of payonce sides (issue 6: < 200 MB) and exactly-once in every storm target. */
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
      `| peak RSS of every payonce side's process < 200 MB (issue 6; compiled payonce, warm-up included) | ${num(peak.bytes / 2 ** 20)} MB (\`${peak.side}\`) | ${peak.bytes < 200 * 2 ** 20 ? 'yes' : '**no**'} |`,
    );
  }
  if (storms.length > 0) {
    lines.push(
      `| handler runs == keys in every pair of every storm target | ${wrong.length === 0 ? `all exact (${storms.length} targets)` : `wrong or unchecked in ${wrong.map((t) => `\`${t.target.id}\``).join(', ')}`} | ${wrong.length === 0 ? 'yes' : '**no**'} |`,
    );
  }
  return lines.length > 2 ? lines : [];
}

/** Inputs of `renderResults` besides the results. */
export interface RenderInput {
  readonly notes: readonly NoteFile[];
  /** How the bench works (bullets). */
  readonly method: readonly string[];
  /** Why a target of issue 6 is missed, by target id (printed only when missed). */
  readonly causes: Readonly<Record<string, string>>;
}

/**
 * How the pairs of `results` were ordered, in words: the side that ran first flipped from pair to pair (runs since
 * Session 16, where pairs record `first`), or A always ran first (earlier results.json files).
 */
export function pairOrderText(results: BenchResults): string {
  const flipped = results.targets.some((t) => t.pairs.some((pair) => pair.first === 'b'));
  return flipped ? 'A and B one after the other, the side that runs first flipping from pair to pair' : 'A then B';
}

/** The whole RESULTS.md (without the kept sections other scripts own; see `kept-sections.ts`). */
export function renderResults(results: BenchResults, input: RenderInput): string {
  const out: string[] = ['# payonce benchmark results', ''];
  const how = results.only ? `\`npm run bench -- --only ${results.only.join(',')}\`` : '`npm run bench`';
  out.push(
    `Generated ${results.generatedAt} by ${how}${results.quick ? ' (BENCH_QUICK=1 smoke run)' : ''} in ${num(results.durationSec)} s. ` +
      'This file is regenerated by every full run; do not edit it by hand. Every number below comes from that run.',
    '',
    `Load average (1 min) at start ${results.loadAverage.start.toFixed(2)}, at end ${results.loadAverage.end.toFixed(2)} ` +
      '(2 cores: above ~2 other work competed with the bench). Each ratio is side A ÷ side B measured pair by pair: ' +
      `${pairOrderText(results)}, each side in a fresh process; the ratio is the median of the per-pair ratios, with ` +
      'their min–max; a target is met only when every pair ran cleanly and the median clears it.',
    '',
  );
  out.push('## Targets', '', ...targetTable(results.targets), '');
  const judged = results.targets.filter((t) => t.met !== null);
  const missed = judged.filter((t) => t.met === false);
  out.push(
    `${judged.length - missed.length} of ${judged.length} targets met` +
      `${missed.length > 0 ? `; missed: ${missed.map((t) => `\`${t.target.id}\``).join(', ')} (each is explained under "Profiles, limits and explanations")` : ''}` +
      `; ${results.targets.length - judged.length} ratios reported without a target.`,
    '',
  );
  if (results.problems.length > 0) out.push('Not in this run:', '', ...results.problems.map((p) => `- ${p}`), '');
  const checks = checkLines(results.targets);
  if (checks.length > 0) out.push('## Checks across targets', '', ...checks, '');
  const groups = [...new Set(results.targets.map((t) => t.target.group))];
  for (const group of groups) {
    out.push(`## ${group}`, '');
    for (const t of results.targets.filter((x) => x.target.group === group))
      out.push(...targetSection(t, input.causes));
  }
  const costs = results.postgresCosts;
  if (costs) {
    out.push(
      '## PostgreSQL: a round trip against a commit (same run)',
      '',
      `8 callers, pool of 10: \`select 1\` ${num(costs.roundTripsPerSec)}/s, autocommit single-row INSERT ${num(costs.autocommitInsertsPerSec)}/s, ` +
        `so a commit costs about ${costs.commitInRoundTrips.toFixed(1)} round trips (C). A delivery in one transaction needs five round ` +
        "trips (BEGIN, claim, business INSERT, completion, COMMIT) and one commit against the bare minimum's two autocommit statements, " +
        `so the best a one-commit design can reach is 2 × (1 + C) ÷ (5 + C) = **${times(costs.oneCommitCeiling)}** (context of \`postgres-tx\`).`,
      '',
    );
  }
  out.push('## Profiles, limits and explanations', '');
  if (results.limits?.markdown) out.push(results.limits.markdown.trim(), '');
  else if (results.limits?.problem) out.push(`Physical limits: ${results.limits.problem}.`, '');
  if (input.notes.length === 0) out.push('No bench/notes/*.md in this tree.', '');
  for (const note of input.notes) out.push(`<!-- bench/notes/${note.file} -->`, '', note.text.trim(), '');
  if (input.method.length > 0) out.push('## Method', '', ...input.method.map((m) => `- ${m}`), '');
  if (results.versions) {
    const v = results.versions;
    out.push('## Versions', '', `- Node ${v.node} (V8 ${v.v8}), ${v.os}, ${v.cpus}, ${v.memoryGiB} GiB RAM`);
    for (const [name, server] of Object.entries(v.servers)) out.push(`- ${name}: ${server}`);
    out.push(
      `- packages: ${Object.entries(v.packages)
        .map(([name, version]) => `${name} ${version}`)
        .join(', ')}`,
      '',
    );
  }
  out.push('## Sizes', '', '```json', JSON.stringify(results.sizes, null, 2), '```', '');
  out.push(`Target files: ${results.targetFiles.map((f) => `${f.file} (${f.count})`).join(', ') || 'none'}.`, '');
  return `${out.join('\n')}\n`;
}
