import { writeFile } from 'node:fs/promises';
import type { StormRepeatReport } from '@payonce/storm/internal/repeat-storm.js';
import type { StormReport } from '@payonce/storm/internal/storm-report.js';
import type { CliIo } from './cli-io.js';

/** Where `payonce storm` writes its reports (each optional). */
export interface StormReportFiles {
  /** `--report FILE`: the JSON report (one run's, or the `--repeat` report with every run). */
  readonly report?: string;
  /** `--junit FILE`: JUnit XML, one testsuite per run. */
  readonly junit?: string;
  /** `--html FILE`: the self-contained HTML report with the per-order timelines. */
  readonly html?: string;
}

/** The renderers the files need (from `@payonce/storm`, loaded lazily by the command). */
export interface StormRenderers {
  stormJunitXmlRuns(runs: readonly StormReport[]): string;
  stormHtmlReport(runs: readonly StormReport[]): string;
}

/**
 * Writes the reports `files` asks for about `result` (one run, or `--repeat`'s runs), saying where on `io`.
 * @throws the file system's error when a file cannot be written.
 */
export async function writeStormReports(
  files: StormReportFiles,
  result: StormReport | StormRepeatReport,
  render: StormRenderers,
  io: CliIo,
): Promise<void> {
  const runs = 'runs' in result ? result.runs : [result];
  if (files.report !== undefined) {
    await writeFile(files.report, `${JSON.stringify(result, null, 2)}\n`);
    io.out(`report written to ${files.report}`);
  }
  if (files.junit !== undefined) {
    await writeFile(files.junit, render.stormJunitXmlRuns(runs));
    io.out(`JUnit report written to ${files.junit}`);
  }
  if (files.html !== undefined) {
    await writeFile(files.html, render.stormHtmlReport(runs));
    io.out(`HTML report written to ${files.html}`);
  }
}

/**
 * The end of a `--repeat N` run's output: per scenario how many runs failed, then every order that ever broke
 * with the seed that replays its run.
 */
export function repeatSummaryLines(repeat: StormRepeatReport): string[] {
  const lines = [`${repeat.runs.length} runs, seeds ${repeat.seeds.join(', ')}`];
  for (const s of repeat.scenarios) {
    const skipped = s.skippedRuns > 0 ? `, skipped in ${s.skippedRuns}` : '';
    const seeds = s.failedRuns > 0 ? ` (--seed ${s.failedSeeds.join(', --seed ')})` : '';
    lines.push(
      `  ${String(s.id).padStart(2)}. ${s.name}: failed in ${s.failedRuns} of ${s.runs} runs${skipped}${seeds}`,
    );
  }
  if (repeat.brokenOrders.length === 0) lines.push('no order broke the common rule in any run');
  for (const o of repeat.brokenOrders) {
    lines.push(`broken: order ${o.orderId} in scenario ${o.scenarioId}, --seed ${o.seed}: ${o.problems.join('; ')}`);
  }
  if (repeat.stopped !== undefined) {
    lines.push(
      `stopped: run ${repeat.stopped.atRun} could not run (${repeat.stopped.reason}); the runs before it are above`,
    );
  }
  lines.push(
    repeat.passed
      ? `PASS: ${repeat.runs.length} runs`
      : repeat.stopped !== undefined && repeat.runs.every((r) => r.passed)
        ? `FAIL: the repeats stopped at run ${repeat.stopped.atRun}`
        : 'FAIL: a scenario failed in at least one run',
  );
  return lines;
}
