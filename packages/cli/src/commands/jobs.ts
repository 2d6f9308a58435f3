import type { Command } from 'commander';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { databaseUrlOption, limitOption, printJson, printTable, type ReadFlags, utc } from '../admin-output.js';
import { loadAdminReads } from '../admin-reads-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';

/**
 * `payonce jobs --dead --database-url URL [--json] [--limit N]`: the outbox's dead letters (jobs that failed
 * every run), newest first, with their last error. Rerun one from the console or `POST /admin/api/jobs/:id/rerun`.
 * @throws {CliUsageError} without `--dead`, a bad `--database-url` (exit 2).
 * @throws {MissingPeer} `@payonce/service` is not installed (exit 1).
 */
export async function runJobs(flags: ReadFlags & { dead?: boolean }, io: CliIo) {
  if (!flags.dead) throw new CliUsageError('pass --dead (the dead-lettered jobs)');
  parseDatabaseUrl(flags.databaseUrl);
  const { openAdminReads, listJobs } = await loadAdminReads('payonce jobs');
  const { reads, close } = await openAdminReads(flags.databaseUrl);
  try {
    const page = await listJobs(reads, { status: 'dead', limit: flags.limit });
    if (flags.json) return printJson(io, page.items);
    if (page.items.length === 0) return io.out('no dead jobs');
    printTable(
      io,
      ['JOB', 'TOPIC', 'DEDUPE KEY', 'RUNS', 'CREATED (UTC)', 'LAST ERROR'],
      page.items.map((j) => [j.id, j.topic, j.dedupeKey, String(j.attempts), utc(j.createdAtMs), j.lastError ?? '']),
    );
  } finally {
    await close();
  }
}

/** Registers `jobs` on the `payonce` program. */
export function registerJobs(program: Command, io: CliIo): void {
  program
    .command('jobs')
    .description('list dead-lettered outbox jobs (needs @payonce/service)')
    .addOption(databaseUrlOption())
    .option('--dead', 'dead-lettered jobs')
    .option('--json', 'print JSON')
    .addOption(limitOption())
    .action(async (flags: ReadFlags & { dead?: boolean }) => {
      await runJobs(flags, io);
    });
}
