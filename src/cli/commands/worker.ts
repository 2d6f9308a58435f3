import type { Command } from 'commander';
import { startBackgroundJobs } from '../../service/background-jobs.js';
import { openServiceRuntime } from '../../service/service-runtime.js';
import { describeTarget, parseDatabaseUrl } from '../../stores/database-url.js';
import type { CliIo } from '../cli-io.js';
import { addRuntimeOptions, type RuntimeFlags, runtimeOptions, untilSignal } from './serve.js';

/**
 * Registers `worker` on the `payonce` program: the reference service's outbox worker (fulfilment, refunds) and
 * reconciliation job without HTTP, on the database of `--database-url` (else `PAYONCE_DATABASE_URL`, else `DATABASE_URL`; migrated on start), for a service run
 * with `--no-worker` or to add workers. Prints `payonce worker running on <database>` and stays up until
 * SIGTERM or SIGINT, then stops after the current job and closes the database. Exit 2 for a bad flag or a
 * missing `--provider-url` (reconciliation asks the provider), 1 when the database cannot be opened.
 * @see `startBackgroundJobs`; docs/service.md "Configuration".
 */
export function registerWorker(program: Command, io: CliIo): void {
  const command = program
    .command('worker')
    .description('run the outbox worker and the reconciliation job of the reference service (no HTTP)');
  addRuntimeOptions(command).action(async (flags: RuntimeFlags) => {
    const options = runtimeOptions(flags, process.env);
    const signal = untilSignal();
    // No intake runs here: webhook receipts (SQL or Redis) are never touched, so no Redis connection is opened.
    const runtime = await openServiceRuntime({ ...options, redisUrl: null });
    const jobs = startBackgroundJobs(runtime);
    io.out(`payonce worker running on ${describeTarget(parseDatabaseUrl(options.databaseUrl))}`);
    const received = await signal;
    io.out(`payonce worker: ${received}, stopping`);
    await jobs.stop();
    await runtime.close();
  });
}
