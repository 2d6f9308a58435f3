import type { Command } from 'commander';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import {
  databaseUrlOption,
  limitOption,
  printJson,
  printTable,
  type ReadFlags,
  staleOptions,
  utc,
} from '../admin-output.js';
import { loadAdminReads } from '../admin-reads-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';

/**
 * `payonce receipts --stuck|--failed --database-url URL [--json] [--limit N]`: receipts still `processing` past
 * their kind's stale limit (their worker died or hung), or `failed` ones, newest claim first. Prints a table
 * (provider, external id, state, attempt, claimed, error) or, with `--json`, the admin API's items.
 * @throws {CliUsageError} neither or both of `--stuck` and `--failed`, a bad `--database-url` (exit 2).
 * @throws {MissingPeer} `@payonce/service` is not installed (exit 1).
 */
export async function runReceipts(flags: ReadFlags & { stuck?: boolean; failed?: boolean }, io: CliIo) {
  if (Boolean(flags.stuck) === Boolean(flags.failed))
    throw new CliUsageError('pass exactly one of --stuck and --failed');
  parseDatabaseUrl(flags.databaseUrl);
  const { openAdminReads, listReceipts } = await loadAdminReads('payonce receipts');
  const { reads, close } = await openAdminReads(flags.databaseUrl, flags);
  try {
    const page = await listReceipts(
      reads,
      flags.stuck ? { stuck: true, limit: flags.limit } : { status: 'failed', limit: flags.limit },
    );
    if (flags.json) return printJson(io, page.items);
    if (page.items.length === 0) return io.out(flags.stuck ? 'no stuck receipts' : 'no failed receipts');
    printTable(
      io,
      ['PROVIDER', 'EXTERNAL ID', 'STATE', 'ATTEMPT', 'CLAIMED (UTC)', 'ERROR'],
      page.items.map((r) => [
        r.provider,
        r.externalId,
        r.stuck ? 'stuck' : r.status,
        String(r.attempts),
        utc(r.claimedAtMs),
        r.error ?? '',
      ]),
    );
  } finally {
    await close();
  }
}

/** Registers `receipts` on the `payonce` program. */
export function registerReceipts(program: Command, io: CliIo): void {
  const command = program
    .command('receipts')
    .description('list stuck (processing past the stale limit) or failed receipts (needs @payonce/service)')
    .addOption(databaseUrlOption())
    .option('--stuck', 'receipts in processing older than their stale limit')
    .option('--failed', 'failed receipts')
    .option('--json', 'print JSON')
    .addOption(limitOption());
  for (const option of staleOptions()) command.addOption(option);
  command.action(async (flags: ReadFlags & { stuck?: boolean; failed?: boolean }) => {
    await runReceipts(flags, io);
  });
}
