import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Capture } from '@payonce/storm/internal/replay/capture.js';
import type { ReplayReport } from '@payonce/storm/internal/replay/replay-report.js';
import { type Command, InvalidArgumentError } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { loadReplay } from '../replay-peer.js';

/** Options of `payonce replay` (and of {@link runReplayCommand}). */
export interface ReplayCommandOptions {
  /** Base URL of the service to replay against. */
  readonly target: string;
  readonly copies: number;
  readonly parallel: number;
  readonly shuffle: boolean;
  readonly seed?: string;
  readonly timeoutMs: number;
  /** Where to write the JSON report, or absent. */
  readonly report?: string;
}

/** The command-line flag of each `replay()` option, for usage errors. */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  target: '--target',
  copies: '--copies',
  parallel: '--parallel',
  seed: '--seed',
  timeoutMs: '--timeout-ms',
};

function replayOptions(options: ReplayCommandOptions) {
  return {
    target: options.target,
    copies: options.copies,
    parallel: options.parallel,
    shuffle: options.shuffle,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    timeoutMs: options.timeoutMs,
  };
}

function positiveInt(max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
    const n = Number(value);
    if (n < 1 || n > max) throw new InvalidArgumentError(`must be from 1 to ${max}`);
    return n;
  };
}

/**
 * `payonce replay FILE --target URL …`: reads the capture file (nothing is sent if any line is invalid), sends
 * every capture `copies` times, prints progress (about every tenth of the run), a table and a summary line, and
 * writes the JSON report to `report` when given.
 * @returns the report.
 * @throws {CliUsageError} a bad target URL, an unreadable or invalid capture file, `--seed` without `--shuffle`, a
 * report path whose folder does not exist (exit 2; nothing was sent).
 * @throws {ReplayFailed} a capture's answers contradict its `expect` (exit 1), after printing and writing the report.
 * @throws {MissingPeer} `@payonce/storm` is not installed (exit 1; nothing was sent).
 * @see docs/replay.md.
 */
export async function runReplayCommand(file: string, options: ReplayCommandOptions, io: CliIo): Promise<ReplayReport> {
  let captures: Capture[];
  if (options.seed !== undefined && options.shuffle !== true) {
    throw new CliUsageError('--seed orders a shuffle: pass --shuffle with it');
  }
  const {
    counted,
    InvalidCaptureFile,
    readCaptureFile,
    replay,
    ReplayFailed,
    replayTable,
    replayTarget,
    resolveReplayOptions,
  } = await loadReplay();
  try {
    replayTarget(options.target);
    captures = await readCaptureFile(file);
    resolveReplayOptions({ ...replayOptions(options), captures });
  } catch (error) {
    if (error instanceof InvalidOption) {
      const flag = FLAG_OF_OPTION[error.option] ?? error.option;
      throw new CliUsageError(`${flag} ${error.message.replace(/^invalid option [^:]+: /, '')}`);
    }
    if (error instanceof InvalidCaptureFile) throw new CliUsageError(error.message);
    throw error;
  }
  if (options.report !== undefined) {
    const folder = path.dirname(path.resolve(options.report));
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new CliUsageError(`--report: folder ${folder} does not exist`);
    }
  }
  const total = captures.length * options.copies;
  const step = Math.max(1, Math.ceil(total / 10));
  const copies = `${counted(options.copies, 'copy', 'copies')} each (${counted(total, 'delivery', 'deliveries')})`;
  const shuffled = options.shuffle ? ', shuffled' : '';
  io.out(
    `payonce replay: ${counted(captures.length, 'capture')} from ${file} to ${options.target}, ${copies}, ` +
      `${options.parallel} in parallel${shuffled}`,
  );
  let success = 0;
  let other = 0;
  let failed = 0;
  const report = await replay({
    ...replayOptions(options),
    captures,
    onDelivery: (result, done) => {
      if (result.status === null) failed++;
      else if (result.status >= 200 && result.status < 300) success++;
      else other++;
      if (done % step === 0 || done === total) {
        io.out(`  ${done}/${total} sent: ${success} 2xx, ${other} non-2xx, ${failed} no answer`);
      }
    },
  });
  io.out('');
  for (const line of replayTable(report)) io.out(line);
  if (options.report !== undefined) {
    await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`report written to ${options.report}`);
  }
  if (!report.ok) {
    throw new ReplayFailed(report.captures.filter((c) => c.verdict === 'contradicted').map((c) => c.id));
  }
  return report;
}

/** Registers `replay` on the `payonce` program: exit 0 when every capture matched, 1 on a contradiction, 2 on usage errors. */
export function registerReplay(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description(
      'send captured webhook deliveries (JSON lines of headers + raw body) to a live service, with copies, ' +
        'parallelism and a seeded shuffle, and report how it answered, see docs/replay.md (needs @payonce/storm)',
    )
    .argument('<file>', 'capture file: one JSON object per line')
    .requiredOption('--target <url>', 'base URL of the service, e.g. http://127.0.0.1:3000')
    .option('--copies <n>', 'send each capture this many times (1-1000)', positiveInt(1_000), 1)
    .option('--parallel <n>', 'requests in flight at once (1-256)', positiveInt(256), 1)
    .option('--shuffle', 'send all copies in a seeded random order', false)
    .option('--seed <text>', 'seed of --shuffle (printed in the summary; a random one when absent)')
    .option('--timeout-ms <ms>', 'limit for one request, ms', positiveInt(600_000), 10_000)
    .option('--report <file>', 'write the full JSON report to this file')
    .action(async (file: string, options: ReplayCommandOptions) => {
      await runReplayCommand(file, options, io);
    });
}
