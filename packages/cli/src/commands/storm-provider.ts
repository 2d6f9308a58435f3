import { writeFile } from 'node:fs/promises';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { AppExited } from '../storm-app/app-exited.js';
import { AppNotHealthy } from '../storm-app/app-not-healthy.js';
import { writeStormErrorReports } from '../storm-error-reports.js';
import { scenarioList, wholeNumberFlag } from '../storm-flags.js';
import { type ProviderProgress, progressLine, providerPlanLine } from '../storm-progress.js';

/** `payonce storm --provider payme|click|uzum` ran and at least one scenario failed (exit status 1). */
export class ProviderStormFailed extends Error {
  constructor(
    readonly provider: string,
    readonly failed: readonly number[],
  ) {
    super(`${provider} scenario(s) failed: ${failed.join(', ')}`);
    this.name = 'ProviderStormFailed';
  }
}

/** The options of `payonce storm` every provider storm reads. */
export interface ProviderStormCommandOptions {
  readonly target: string;
  readonly adminToken?: string;
  readonly only?: string;
  readonly report?: string;
  /** `--junit FILE`: the JUnit XML report (also when the endpoint is down). */
  readonly junit?: string;
  /** `--html FILE`: the HTML report with each order's timeline (when the run finished). */
  readonly html?: string;
  readonly timeoutMs?: string;
  readonly concurrency?: string;
  /** `--settle-ms <ms>`: the wait after the scenarios before every order is judged again. */
  readonly settleMs?: string;
  readonly replica?: readonly string[];
}

/** What a provider's storm report must have for the command (its results' numbers and verdicts). */
export interface CommandReport {
  readonly results: readonly { readonly id: number; readonly verdict: string }[];
}

/** How one provider storm run is asked for: the scenarios, their budget, how many at a time, the progress. */
export interface ProviderRun {
  readonly only?: number[];
  readonly timeoutMs?: number;
  readonly concurrency: number;
  /** The wait before every order is judged again after the scenarios, ms (the storm's default when absent). */
  readonly settleMs?: number;
  onProgress(event: ProviderProgress): void;
  /** Aborts when the run must stop at once (the app under test exited); the storm then rejects with its reason. */
  readonly signal?: AbortSignal;
}

/** A provider storm as the command runs it, once `@payonce/storm` is loaded. */
export interface LoadedProviderStorm<T extends { close(): Promise<void> }, R extends CommandReport> {
  /** The target of the service at `--target`. @throws {InvalidOption} a bad URL or credential. */
  target(timeoutMs: number | undefined): T;
  run(target: T, options: ProviderRun): Promise<R>;
  table(report: R): string;
  summary(report: R): string;
  /** The HTML report (`--html`): the scenario table and each order's timeline. */
  html(report: R): string;
  /** The JUnit XML (`--junit`): a testcase per scenario, a `<failure>` per failed one. */
  junit(report: R): string;
  /** The JUnit XML of a run that gave no verdict, with the error's `code` and `message`. */
  junitError(code: string, message: string): string;
  /** The HTML page of a run that gave no verdict, with the error's `code` and `message`. */
  htmlError(code: string, message: string): string;
  /** The storm's "target unavailable" error class. */
  readonly StormTargetUnavailable: abstract new (
    ...args: never[]
  ) => Error & { readonly code: string };
  /** Numbers of the scenarios that run alone at the end. */
  readonly aloneIds: readonly number[];
}

/**
 * Runs one provider storm for `payonce storm --provider <name>`: checks the common flags (`--replica` refused),
 * loads the storm, prints a plan line and a progress line per scenario start and end, the table and the summary,
 * and writes the JSON report to `--report`, the JUnit XML to `--junit` and the HTML report to `--html` (also when
 * scenarios failed; when the endpoint is down or the app never became healthy or exited, they name that cause).
 * @throws {CliUsageError} `--replica` given, a malformed number, URL, credential or `--only` (exit status 2).
 * @throws {ProviderStormFailed} at least one scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the endpoint does not answer, or refuses the credentials (exit status 1).
 * @throws {AppNotHealthy} {AppExited} from `storm.run` of an app storm: the app never became healthy, or exited
 *   during the run (exit status 1).
 */
export async function runProviderStormCommand<T extends { close(): Promise<void> }, R extends CommandReport>(
  options: ProviderStormCommandOptions,
  io: CliIo,
  provider: string,
  load: () => Promise<LoadedProviderStorm<T, R>>,
): Promise<R> {
  if (options.replica !== undefined && options.replica.length > 0) {
    throw new CliUsageError(`--replica is for the Stripe storm; the ${provider} storm drives one service (--target)`);
  }
  const only = options.only === undefined ? undefined : scenarioList(options.only, '1,5,9');
  const timeoutMs = wholeNumberFlag(options.timeoutMs, '--timeout-ms');
  const concurrency = wholeNumberFlag(options.concurrency, '--concurrency') ?? 4;
  const settleMs = wholeNumberFlag(options.settleMs, '--settle-ms');
  const storm = await load();
  let report: R;
  let target: T | undefined;
  try {
    target = storm.target(timeoutMs);
    report = await storm.run(target, {
      only,
      timeoutMs,
      concurrency,
      ...(settleMs === undefined ? {} : { settleMs }),
      onProgress: (event) => {
        if (event.kind === 'started' && event.index === 1) {
          io.out(providerPlanLine(provider, event.total, concurrency, storm.aloneIds, only));
        }
        io.out(progressLine(event));
      },
    });
  } catch (error) {
    if (error instanceof InvalidOption) throw new CliUsageError(error.message);
    if (error instanceof storm.StormTargetUnavailable || error instanceof AppNotHealthy || error instanceof AppExited) {
      await writeStormErrorReports(options, error, storm, io);
    }
    throw error;
  } finally {
    await target?.close();
  }
  io.out('');
  for (const line of storm.table(report).split('\n')) io.out(line);
  io.out('');
  io.out(storm.summary(report));
  if (options.report !== undefined) {
    await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`report written to ${options.report}`);
  }
  if (options.junit !== undefined) {
    await writeFile(options.junit, storm.junit(report));
    io.out(`JUnit report written to ${options.junit}`);
  }
  if (options.html !== undefined) {
    await writeFile(options.html, storm.html(report));
    io.out(`HTML report written to ${options.html}`);
  }
  const failed = report.results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  if (failed.length > 0) throw new ProviderStormFailed(provider, failed);
  return report;
}
