import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { DemoFailed } from '../demo/demo-failed.js';
import { runDemo } from '../demo/run-demo.js';

/** Registers `demo` (what `npm start` runs) on the `payonce` program; exits 1 when a scenario fails. */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('run the exactly-once scenarios against receipts on a fresh SQLite file and print the verdicts')
    .option('--database <path>', 'SQLite file to use instead of a fresh temporary one')
    .option('--workers <n>', 'simulated worker connections', (value) => Number.parseInt(value, 10), 3)
    .action(async (options: { database?: string; workers: number }) => {
      if (!Number.isInteger(options.workers) || options.workers < 1 || options.workers > 64) {
        throw new CliUsageError('--workers must be an integer from 1 to 64');
      }
      const report = await runDemo(io, { databasePath: options.database, workers: options.workers });
      if (!report.passed) throw new DemoFailed(report.results.filter((r) => !r.passed).map((r) => r.name));
    });
}
