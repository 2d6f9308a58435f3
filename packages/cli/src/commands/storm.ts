import type { StormRepeatReport } from '@payonce/storm/internal/repeat-storm.js';
import type { StormReport } from '@payonce/storm/internal/storm-report.js';
import { type Command, Option } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { AppExited } from '../storm-app/app-exited.js';
import { AppNotHealthy } from '../storm-app/app-not-healthy.js';
import { withStormApp } from '../storm-app/storm-app-world.js';
import { writeStormErrorReports } from '../storm-error-reports.js';
import { scenarioList, wholeNumberFlag } from '../storm-flags.js';
import { loadStorm } from '../storm-peer.js';
import { progressLine, stormPlanLine } from '../storm-progress.js';
import { repeatSummaryLines, writeStormReports } from '../storm-report-files.js';
import { readFaults } from './sandbox.js';
import { clickUzumOptions, telegramOptions } from './serve.js';
import { type AppProvider, runAppProviderStormCommand } from './storm-app-provider.js';
import { type ClickUzumStormCommandOptions, runClickStormCommand, runUzumStormCommand } from './storm-click-uzum.js';
import { runStormInit } from './storm-init.js';
import { runPaymeStormCommand } from './storm-payme.js';
import { runTelegramStormCommand, type TelegramStormCommandOptions } from './storm-telegram.js';

/** `payonce storm` ran and at least one scenario failed (exit status 1); `failed` lists their numbers. */
export class StormFailed extends Error {
  constructor(readonly failed: readonly number[]) {
    super(`scenario(s) failed: ${failed.join(', ')}`);
    this.name = 'StormFailed';
  }
}

/** The words `--provider` takes for the storms of the providers that call the merchant. */
const LOCAL_PROVIDERS: readonly AppProvider[] = ['payme', 'click', 'uzum', 'telegram'];

/** True for a `--provider` word that names a provider storm (not a sandbox URL). */
const isLocalProvider = (provider: string | undefined): provider is AppProvider =>
  LOCAL_PROVIDERS.some((p) => p === provider);

/** Options of `payonce storm` as commander parses them. */
export interface StormCommandOptions
  extends Omit<ClickUzumStormCommandOptions, 'target'>,
    Omit<TelegramStormCommandOptions, 'target'> {
  /** `--target <url>`: the reference service (required unless `--adapter`). */
  target?: string;
  /** `--provider <url|payme|click|uzum|telegram>` (required unless `--adapter`: the storm then starts its own sandbox). */
  provider?: string;
  /** `--adapter <file>`: the user's app through its storm adapter (docs/storm-your-app.md). */
  adapter?: string;
  /** `--start <cmd>`: with `--adapter`, the shell command that starts the app. */
  start?: string;
  /** `--url <url>`: with `--adapter`, the app's base URL. */
  url?: string;
  /** `--start-timeout-ms <ms>`: how long the started app has to become healthy. */
  startTimeoutMs?: string;
  /** `--junit <file>`: write the JUnit XML report. */
  junit?: string;
  /** `--html <file>`: write the self-contained HTML report (scenario table, per-order timelines). */
  html?: string;
  /** `--faults <file>`: with `--adapter`, fault rules for the storm's sandbox (docs/sandbox.md). */
  faults?: string;
  /** `--repeat <n>`: run the scenarios n times, each with a fresh seed. */
  repeat?: string;
  adminToken?: string;
  only?: string;
  report?: string;
  timeoutMs?: string;
  /** `--settle-ms <ms>`: the wait after the last scenario before every order is judged again. */
  settleMs?: string;
  concurrency?: string;
  /** `--seed <n>`: replays the random choices of the run that printed it. */
  seed?: string;
  /** `--replica <url>`, repeatable: every replica of the service (the storm spreads its requests over them). */
  replica?: string[];
  /** `--payme-key` (or PAYONCE_PAYME_KEY): the cashbox key of the service's `/payme`, for `--provider payme`. */
  paymeKey?: string;
  /** `--payme-account-field`: the `account` field naming the order, for `--provider payme`. */
  paymeAccountField?: string;
}

/** A flag the run needs (`--target`, `--provider`), or a usage error that also names `--adapter`. */
function requiredFlag(value: string | undefined, flag: string): string {
  if (value === undefined) {
    throw new CliUsageError(`required option '${flag}' not specified (or --adapter FILE for your own app)`);
  }
  return value;
}

/**
 * `payonce storm`: runs the docs/design.md §9 scenarios against a live service and sandbox (`--target`,
 * `--provider`), or against the user's own app through its adapter (`--adapter FILE [--start CMD] [--url URL]`:
 * the storm starts its sandbox, and the app with `--start`, see `withStormApp`), printing a progress line per
 * scenario start and end, then the table and the one-line summary; writes the JSON report to `options.report` and
 * the JUnit XML to `options.junit` when given (also when scenarios failed or nothing could run) and the HTML report
 * to `options.html` (the run's, or the page naming why there is no verdict). With `--repeat N` it runs N times with fresh seeds, prints each run's seed
 * and summary, then per scenario how many runs failed and every broken order with its seed; the reports then hold
 * every run. Returns the (last) run's report.
 * @throws {CliUsageError} a malformed `--only`, `--timeout-ms`, `--concurrency`, `--repeat` or URL, `--repeat` with
 *   `--seed`, neither `--adapter` nor
 *   `--target` and `--provider`, a bad adapter file (exit status 2).
 * @throws {StormFailed} at least one scenario failed (exit status 1), after printing and writing the reports.
 * @throws {StormTargetUnavailable} the service or the sandbox does not answer (exit status 1); with `--report`, the
 *   report then holds `{ passed: false, error: { code, message }, results: [] }`.
 * @throws {AppNotHealthy} the `--adapter` app never became healthy (exit status 1; reports as above).
 * @throws {AppExited} the `--start`ed app ended during the run: the run stopped at once (exit status 1; reports as
 *   above, with `--html` too).
 * @throws {MissingPeer} `@payonce/storm` (or `@payonce/sandbox`, or `tsx` for a `.ts` adapter) is not installed
 *   (exit status 1), before anything is sent.
 */
export async function runStormCommand(options: StormCommandOptions, io: CliIo): Promise<StormReport> {
  if (isLocalProvider(options.provider)) {
    throw new CliUsageError(`--provider ${options.provider} runs through its own storm command`);
  }
  const adapter = options.adapter;
  if (adapter === undefined) {
    for (const [flag, value] of [
      ['--start', options.start],
      ['--url', options.url],
      ['--faults', options.faults],
    ] as const) {
      if (value !== undefined) throw new CliUsageError(`${flag} goes with --adapter FILE`);
    }
  } else if (options.target !== undefined || options.provider !== undefined || options.replica !== undefined) {
    throw new CliUsageError('--adapter starts its own sandbox and app: leave out --target, --provider and --replica');
  }
  const only = options.only === undefined ? undefined : scenarioList(options.only);
  const concurrencyFlag = wholeNumberFlag(options.concurrency, '--concurrency');
  const timeoutMs = wholeNumberFlag(options.timeoutMs, '--timeout-ms');
  const settleMs = wholeNumberFlag(options.settleMs, '--settle-ms');
  const seed = wholeNumberFlag(options.seed, '--seed');
  const repeat = wholeNumberFlag(options.repeat, '--repeat');
  if (repeat !== undefined && seed !== undefined) {
    throw new CliUsageError('--repeat draws a fresh seed for every run: leave out --seed (use it to replay one)');
  }
  const startTimeoutMs = wholeNumberFlag(options.startTimeoutMs, '--start-timeout-ms');
  const storm = await loadStorm('payonce storm');
  const concurrency = concurrencyFlag ?? storm.DEFAULT_STORM_CONCURRENCY;
  const common = {
    only,
    timeoutMs,
    ...(settleMs === undefined ? {} : { settleMs }),
    concurrency,
    seed,
    onProgress: (event: Parameters<typeof progressLine>[0]) => {
      if (event.kind === 'started' && event.index === 1)
        io.out(stormPlanLine(event.total, concurrency, storm.KILLING_SCENARIO_IDS, only));
      io.out(progressLine(event));
    },
  };
  type RunOptions = Parameters<typeof storm.runStorm>[0];
  const run = (runOptions: RunOptions): Promise<StormReport | StormRepeatReport> =>
    repeat === undefined
      ? storm.runStorm(runOptions)
      : storm.repeatStorm({
          ...runOptions,
          times: repeat,
          onRun: ({ run: i, of, report: done }) => {
            if (done === undefined) io.out(`run ${i} of ${of}`);
            else io.out(`run ${i} of ${of}: seed ${done.seed}, ${storm.stormSummary(done)}`);
          },
        });
  let result: StormReport | StormRepeatReport;
  try {
    result =
      adapter === undefined
        ? await run({
            ...common,
            target: requiredFlag(options.target, '--target <url>'),
            replicas: options.replica === undefined || options.replica.length === 0 ? undefined : options.replica,
            provider: requiredFlag(options.provider, '--provider <url|payme|click|uzum|telegram>'),
            adminToken: options.adminToken,
          })
        : await withStormApp(
            {
              adapter,
              start: options.start,
              url: options.url,
              startTimeoutMs,
              ...(options.faults === undefined ? {} : { faultRules: await readFaults(options.faults) }),
            },
            io,
            (world) => run({ ...common, app: world.app, provider: world.provider, signal: world.signal }),
          );
  } catch (error) {
    if (error instanceof InvalidOption) throw new CliUsageError(error.message);
    if (error instanceof storm.StormTargetUnavailable || error instanceof AppNotHealthy || error instanceof AppExited) {
      const render = { junitError: storm.stormJunitErrorXml, htmlError: storm.stormHtmlErrorReport };
      await writeStormErrorReports(options, error, render, io);
    }
    throw error;
  }
  const report = 'runs' in result ? result.runs[result.runs.length - 1] : result;
  if (report === undefined) throw new Error('the storm ran no run'); // repeatStorm runs at least once
  if ('runs' in result) {
    io.out('');
    for (const line of repeatSummaryLines(result)) io.out(line);
  } else {
    io.out(`seed ${report.seed} (--seed ${report.seed} replays the run's random choices and the sandbox's faults)`);
    io.out('');
    for (const line of storm.formatStormTable(report).split('\n')) io.out(line);
    io.out('');
    io.out(storm.stormSummary(report));
  }
  await writeStormReports(options, result, storm, io);
  const runs = 'runs' in result ? result.runs : [result];
  for (const [i, done] of runs.entries()) {
    if (done.closeError !== undefined) {
      io.err(
        `payonce storm: the adapter's close() failed${runs.length > 1 ? ` (run ${i + 1})` : ''}: ${done.closeError}`,
      );
    }
  }
  const failed = [...new Set(runs.flatMap((r) => r.results.filter((x) => x.verdict === 'fail').map((x) => x.id)))];
  if (failed.length > 0) throw new StormFailed(failed.sort((a, b) => a - b));
  if ('runs' in result && result.stopped !== undefined) {
    throw new Error(`the repeats stopped at run ${result.stopped.atRun}: ${result.stopped.reason}`);
  }
  return report;
}
/** Registers `storm` on the `payonce` program. */
export function registerStorm(program: Command, io: CliIo): void {
  const storm = program
    .command('storm')
    .description(
      'run the conformance scenarios against a live payonce service (docs/design.md §9), your own app ' +
        '(--adapter FILE; `storm init` writes one) or a provider endpoint (--provider NAME) ' +
        '(needs @payonce/storm)',
    )
    .option('--target <url>', 'base URL of the service under test, e.g. http://127.0.0.1:3000')
    .option(
      '--provider <url|payme|click|uzum|telegram>',
      'base URL of the sandbox provider the service uses (the Stripe storm), or "payme", "click", "uzum", "telegram" for that storm (each also with --adapter)',
    )
    .option(
      '--adapter <file>',
      'your own app through its storm adapter (.ts or .js; payonce storm init writes one); the storm starts its sandbox',
    )
    .option('--start <command>', 'with --adapter: shell command that starts the app (stopped at the end)')
    .option(
      '--url <url>',
      'with --adapter: base URL of the app (default with --start: a free port from 20000-29999, given as PORT)',
    )
    .option('--start-timeout-ms <ms>', 'with --start: how long the app has to become healthy', '60000')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per scenario) for CI systems (every storm)')
    .option(
      '--faults <file>',
      'with --adapter: fault rules for the storm’s sandbox (JSON, see docs/sandbox.md), drawn from the run’s seed',
    )
    .option(
      '--html <file>',
      'write a self-contained HTML report: the scenario table and every order’s timeline (every storm)',
    )
    .option(
      '--repeat <n>',
      'run the scenarios n times, each with a fresh seed (printed); reports any order that ever broke',
    )
    .addOption(
      new Option('--admin-token <token>', 'the service admin token (scenario 14 is skipped without it)').env(
        'PAYONCE_ADMIN_TOKEN',
      ),
    )
    .option('--only <numbers>', 'run only these scenarios, e.g. 1,8,12')
    .option('--report <file>', 'write the JSON report (every scenario, its counts, orders, verdict and reasons)')
    .option('--timeout-ms <ms>', 'budget of one scenario in ms (raise it for long service timings)', '30000')
    .option('--settle-ms <ms>', 'wait after the last scenario, then judge every order again (background effects)')
    .option('--concurrency <n>', 'scenarios run at the same time (12, 16 and 21 always run alone)', '4')
    .option('--seed <n>', 'seed of the run’s random choices (printed by every run; the same seed replays them)')
    .option(
      '--replica <url>',
      'a replica of the service (repeat for each; the requests go round-robin, 12 kills one at random, 19-22 need two or more)',
      (url: string, previous: string[] = []) => [...previous, url],
    )
    .addOption(
      new Option('--payme-key <key>', 'with --provider payme: the cashbox key of the service’s /payme').env(
        'PAYONCE_PAYME_KEY',
      ),
    )
    .addOption(
      new Option('--payme-account-field <field>', 'with --provider payme: the account field naming the order')
        .env('PAYONCE_PAYME_ACCOUNT_FIELD')
        .default('order_id'),
    )
    .action(async (options: StormCommandOptions) => {
      const provider = options.provider;
      if (!isLocalProvider(provider)) {
        await runStormCommand(options, io);
        return;
      }
      if (options.adapter !== undefined) {
        if (options.target !== undefined) throw new CliUsageError('--adapter drives your app: leave out --target');
        const { adapter, start, url } = options;
        const startTimeoutMs = wholeNumberFlag(options.startTimeoutMs, '--start-timeout-ms');
        await runAppProviderStormCommand(provider, { ...options, adapter, start, url, startTimeoutMs }, io);
        return;
      }
      const local = { ...options, provider, target: requiredFlag(options.target, '--target <url>') };
      if (local.provider === 'payme') await runPaymeStormCommand(local, io);
      else if (local.provider === 'click') await runClickStormCommand(local, io);
      else if (local.provider === 'telegram') await runTelegramStormCommand(local, io);
      else await runUzumStormCommand(local, io);
    });
  for (const option of [...clickUzumOptions(), ...telegramOptions()]) storm.addOption(option);
  program
    .command('storm-init', { hidden: true }) // reached as `payonce storm init` (run-cli.ts maps it)
    .argument('[file]', 'the adapter file to write', 'storm.adapter.ts')
    .description('write a commented storm adapter template for your own app (docs/storm-your-app.md)')
    .action(async (file: string) => {
      await runStormInit(file, io);
    });
}
