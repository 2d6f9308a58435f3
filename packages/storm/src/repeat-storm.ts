import { InvalidOption } from 'payonce/internal/core/errors.js';
import { errorText } from './error-text.js';
import { keptOpen } from './kept-open.js';
import { runStorm, type StormOptions } from './run-storm.js';
import type { StormReport } from './storm-report.js';

/** How one scenario fared over the runs of {@link repeatStorm}. */
export interface RepeatedScenario {
  readonly id: number;
  readonly name: string;
  /** Runs it took part in (skipped ones included). */
  readonly runs: number;
  readonly failedRuns: number;
  readonly skippedRuns: number;
  /** Seeds of the runs it failed in: `--seed S` replays one. */
  readonly failedSeeds: readonly number[];
}

/**
 * An order that broke in one of the runs, with the seed that replays the run: it broke the common rule (its
 * problems), or it belongs to a scenario that failed on its own criterion (the scenario's reasons).
 */
export interface BrokenOrder {
  readonly seed: number;
  readonly scenarioId: number;
  readonly orderId: string;
  readonly problems: readonly string[];
}

/** The result of {@link repeatStorm} (the JSON report of `payonce storm --repeat N`). */
export interface StormRepeatReport {
  /** True when no scenario failed in any run. */
  readonly passed: boolean;
  /** The seed of each run, in order. */
  readonly seeds: readonly number[];
  readonly scenarios: readonly RepeatedScenario[];
  readonly brokenOrders: readonly BrokenOrder[];
  /** Every run's own report, in order. */
  readonly runs: readonly StormReport[];
  /**
   * Why the repeats stopped before `times` runs, when they did: a later run could not run (the app stopped
   * answering, or exited). The runs before it are kept above; `passed` is then false.
   */
  readonly stopped?: { readonly atRun: number; readonly reason: string };
}

/** Options of {@link repeatStorm}: those of `runStorm` without `seed` (each run draws a fresh one). */
export interface RepeatStormOptions extends Omit<StormOptions, 'seed'> {
  /** How many runs, 1…1 000. */
  readonly times: number;
  /** Called before each run with its number (from 1), and after it with its report. */
  readonly onRun?: (event: { readonly run: number; readonly of: number; readonly report?: StormReport }) => void;
}

/** Per-scenario counts and the broken orders over `runs`. Pure. */
export function summarizeRuns(runs: readonly StormReport[], stopped?: StormRepeatReport['stopped']): StormRepeatReport {
  const scenarios = new Map<number, { name: string; runs: number; failed: number; skipped: number; seeds: number[] }>();
  const brokenOrders: BrokenOrder[] = [];
  for (const run of runs) {
    for (const result of run.results) {
      const row = scenarios.get(result.id) ?? { name: result.name, runs: 0, failed: 0, skipped: 0, seeds: [] };
      row.runs += 1;
      if (result.verdict === 'skip') row.skipped += 1;
      if (result.verdict === 'fail') {
        row.failed += 1;
        row.seeds.push(run.seed);
      }
      scenarios.set(result.id, row);
      // A failed scenario whose orders each pass the common rule failed on its own criterion: its orders are the
      // offending ones, with the scenario's reasons.
      const ruleBroken = result.orders.filter((o) => o.problems.length > 0);
      const offending = ruleBroken.length === 0 && result.verdict === 'fail' ? result.orders : ruleBroken;
      for (const order of offending) {
        const problems = order.problems.length > 0 ? order.problems : result.reasons;
        brokenOrders.push({ seed: run.seed, scenarioId: result.id, orderId: order.orderId, problems });
      }
    }
  }
  return Object.freeze({
    passed: stopped === undefined && runs.every((r) => r.passed),
    seeds: Object.freeze(runs.map((r) => r.seed)),
    scenarios: Object.freeze(
      [...scenarios]
        .sort(([a], [b]) => a - b)
        .map(([id, row]) =>
          Object.freeze({
            id,
            name: row.name,
            runs: row.runs,
            failedRuns: row.failed,
            skippedRuns: row.skipped,
            failedSeeds: Object.freeze(row.seeds),
          }),
        ),
    ),
    brokenOrders: Object.freeze(brokenOrders),
    runs: Object.freeze([...runs]),
    ...(stopped === undefined ? {} : { stopped: Object.freeze({ ...stopped }) }),
  });
}

/**
 * Runs the storm `times` times in a row, each run with a fresh seed (in its report and `onRun`), on the same app
 * and sandbox (an adapter `app` is closed once, after the last run), and reports per scenario how many runs failed
 * and every order that ever broke the common rule, with the seed that replays its run (`--seed S`). A failing run
 * does not stop the others. A run that cannot run at all (the app or the sandbox stopped answering, the app exited)
 * ends the repeats: the runs before it are reported, with `stopped` saying at which run and why.
 * @throws {InvalidOption} `times` not from 1 to 1 000, or a bad option of `runStorm`.
 * @throws whatever the FIRST run throws (`StormTargetUnavailable`, an abort's reason): there is nothing to report.
 */
export async function repeatStorm(options: RepeatStormOptions): Promise<StormRepeatReport> {
  const { times, onRun, ...rest } = options;
  if (!Number.isSafeInteger(times) || times < 1 || times > 1_000) {
    throw new InvalidOption('repeat', 'must be an integer from 1 to 1000');
  }
  const app = rest.app;
  const runs: StormReport[] = [];
  let stopped: StormRepeatReport['stopped'];
  try {
    for (let run = 1; run <= times; run += 1) {
      onRun?.({ run, of: times });
      let report: StormReport;
      try {
        report = await runStorm({ ...rest, ...(app === undefined ? {} : { app: keptOpen(app) }) });
      } catch (error) {
        if (runs.length === 0 || error instanceof InvalidOption) throw error;
        stopped = { atRun: run, reason: errorText(error) };
        break;
      }
      runs.push(report);
      onRun?.({ run, of: times, report });
    }
  } finally {
    await app?.close?.();
  }
  return summarizeRuns(runs, stopped);
}
