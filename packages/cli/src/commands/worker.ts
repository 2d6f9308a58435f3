import type { ServiceOptions } from '@payonce/service/internal/service-options.js';
import { type Command, Option } from 'commander';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { describeTarget, parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import type { CliIo } from '../cli-io.js';
import { addRuntimeOptions, intIn, type RuntimeFlags, runtimeOptions, untilSignal } from './serve.js';

/** The flags of `payonce worker`: the shared ones and `--concurrency`. */
export interface WorkerFlags extends RuntimeFlags {
  /** Outbox jobs run at once (1–1000); `undefined` = the service's default of 4. */
  concurrency?: number;
}

/**
 * The `ServiceOptions` of `payonce worker`'s flags: `runtimeOptions` plus `--concurrency` as `workerConcurrency`.
 * @throws as `runtimeOptions` does.
 */
export function workerOptions(flags: WorkerFlags, env: NodeJS.ProcessEnv): ServiceOptions & { databaseUrl: string } {
  return { ...runtimeOptions(flags, env), workerConcurrency: flags.concurrency };
}

/**
 * The service runtime and its background jobs, loaded when `payonce worker` runs (the service is an optional peer).
 * @throws {MissingPeer} `@payonce/service` (or a package it needs) is not installed.
 */
async function loadWorkerRuntime() {
  const [runtime, jobs] = await Promise.all([
    importWithPeers('payonce worker', () => import('@payonce/service/internal/service-runtime.js')),
    importWithPeers('payonce worker', () => import('@payonce/service/internal/background-jobs.js')),
  ]);
  return {
    openServiceRuntime: runtime.openServiceRuntime,
    startBackgroundJobsWhenReady: jobs.startBackgroundJobsWhenReady,
  };
}

/**
 * Registers `worker` on the `payonce` program: the reference service's outbox worker (fulfilment, refunds) and
 * reconciliation job without HTTP, on the database of `--database-url` (else `PAYONCE_DATABASE_URL`, else
 * `DATABASE_URL`; migrated on start), for a service run with `--no-worker` or to add workers; it runs
 * `--concurrency` jobs at once (else `PAYONCE_WORKER_CONCURRENCY`, else 4). Prints `payonce worker running on
 * <database>` and stays up until SIGTERM or SIGINT, then stops after the current jobs and closes the database.
 * A database that is down at start is waited for (retried with back-off, logged); the jobs start once it answered
 * and was migrated. Exit 2 for a bad flag or a missing `--provider-url` (reconciliation asks the provider), 1 when
 * a SQLite file cannot be opened or `@payonce/service` is not installed.
 * @see `startBackgroundJobs`; docs/service.md "Configuration".
 */
export function registerWorker(program: Command, io: CliIo): void {
  const command = program
    .command('worker')
    .description(
      'run the outbox worker and the reconciliation job of the reference service, no HTTP (needs @payonce/service)',
    );
  addRuntimeOptions(command)
    .addOption(
      new Option('--concurrency <n>', 'outbox jobs this worker runs at once, 1–1000 (default 4)')
        .env('PAYONCE_WORKER_CONCURRENCY')
        .argParser(intIn('--concurrency', 1, 1_000)),
    )
    .action(async (flags: WorkerFlags) => {
      const options = workerOptions(flags, process.env);
      const signal = untilSignal();
      const { openServiceRuntime, startBackgroundJobsWhenReady } = await loadWorkerRuntime();
      // No intake runs here: webhook receipts (SQL or Redis) are never touched, so no Redis connection is opened.
      const runtime = await openServiceRuntime({ ...options, redisUrl: null });
      // The jobs start once the database answers (retried with back-off while it is down).
      const jobs = startBackgroundJobsWhenReady(runtime);
      io.out(`payonce worker running on ${describeTarget(parseDatabaseUrl(options.databaseUrl))}`);
      const received = await signal;
      io.out(`payonce worker: ${received}, stopping`);
      await jobs.stop();
      await runtime.close();
    });
}
