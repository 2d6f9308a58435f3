import type { Command } from 'commander';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { describeTarget, parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import type { ReceiptsDatabase } from 'payonce/internal/stores/sql/receipts-table.js';
import { tablesOf } from 'payonce/internal/stores/sql/table-namespace.js';
import { type ReceiptRetention, runHousekeeping } from 'payonce/internal/webhooks/housekeeping.js';
import { SqlDeliveryJournal } from 'payonce/internal/webhooks/journal/sql-delivery-journal.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';
import { retentionAgeMs } from '../retention-age.js';

/** `Idempotency-Key` receipts live under this provider (the HTTP layer's default namespace). */
const HTTP_PROVIDER = 'http';

/** Flags of `payonce purge`: each retention is an age (`30d`, `24h`). */
export interface PurgeFlags {
  readonly databaseUrl?: string;
  /** Finished receipts of every provider but `http` (webhook and payment receipts). */
  readonly receipts?: string;
  /** Finished `Idempotency-Key` receipts (provider `http`). */
  readonly httpKeys?: string;
  /** Delivery journal rows. */
  readonly journal?: string;
  readonly json?: boolean;
}

/** What `payonce purge` deleted, per table. */
export interface PurgeReport {
  readonly receipts: number;
  readonly httpKeys: number;
  readonly journal: number;
}

async function providersOf(store: Awaited<ReturnType<typeof openSqlStore>>): Promise<string[]> {
  const rows = await tablesOf<ReceiptsDatabase>(store)
    .selectFrom('payonce_receipts')
    .select('provider')
    .distinct()
    .execute();
  return rows.map((row) => String(row.provider)).filter((provider) => provider !== HTTP_PROVIDER);
}

/**
 * `payonce purge --database-url URL [--receipts AGE] [--http-keys AGE] [--journal AGE] [--json]`: one
 * housekeeping run on a migrated SQL database (SQLite, PostgreSQL, MySQL/MariaDB) through the stores' own purge:
 * finished receipts of every provider but `http` older than `--receipts`, finished `Idempotency-Key` receipts
 * older than `--http-keys`, journal rows older than `--journal`. `processing` receipts are never deleted. Prints
 * what was deleted (`--json`: `{ receipts, httpKeys, journal }`). Run it from cron, or use `startHousekeeping`.
 * @throws {CliUsageError} no retention given, a malformed age or URL (exit status 2).
 * @throws the driver's error when the database cannot be reached (status 1).
 */
export async function runPurge(flags: PurgeFlags, io: CliIo): Promise<PurgeReport> {
  const ages = {
    receipts: flags.receipts === undefined ? null : retentionAgeMs('--receipts', flags.receipts),
    httpKeys: flags.httpKeys === undefined ? null : retentionAgeMs('--http-keys', flags.httpKeys),
    journal: flags.journal === undefined ? null : retentionAgeMs('--journal', flags.journal),
  };
  if (ages.receipts === null && ages.httpKeys === null && ages.journal === null) {
    throw new CliUsageError('give at least one retention: --receipts, --http-keys or --journal (e.g. 30d)');
  }
  const target = parseDatabaseUrl(databaseUrlOf(flags.databaseUrl, process.env));
  const store = await openSqlStore(target);
  try {
    const guard = new IdempotencyGuard(store);
    const receipts: ReceiptRetention[] = [];
    if (ages.receipts !== null) {
      for (const provider of await providersOf(store)) receipts.push({ guard, olderThanMs: ages.receipts, provider });
    }
    const report = await runHousekeeping({
      receipts:
        ages.httpKeys === null
          ? receipts
          : [...receipts, { guard, olderThanMs: ages.httpKeys, provider: HTTP_PROVIDER }],
      journal:
        ages.journal === null ? undefined : { journal: new SqlDeliveryJournal(store), olderThanMs: ages.journal },
    });
    const sum = (counts: readonly number[]) => counts.reduce((a, b) => a + b, 0);
    const result: PurgeReport = {
      receipts: sum(report.receipts.slice(0, receipts.length)),
      httpKeys: sum(report.receipts.slice(receipts.length)),
      journal: report.journal,
    };
    if (flags.json) io.out(JSON.stringify(result));
    else {
      io.out(`payonce purge: ${describeTarget(target)}`);
      io.out(
        `deleted ${result.receipts} receipts, ${result.httpKeys} Idempotency-Key receipts, ${result.journal} journal rows`,
      );
    }
    return result;
  } finally {
    await store.close();
  }
}

/** Registers `purge` on the `payonce` program. */
export function registerPurge(program: Command, io: CliIo): void {
  program
    .command('purge')
    .description('delete finished receipts, Idempotency-Key receipts and journal rows older than their retention')
    .addOption(databaseUrlOption('SQLite file path, postgres://… or mysql://…'))
    .option('--receipts <age>', 'finished receipts of every provider but http older than this (e.g. 30d)')
    .option('--http-keys <age>', 'finished Idempotency-Key receipts (provider http) older than this (e.g. 24h)')
    .option('--journal <age>', 'webhook delivery journal rows older than this (e.g. 90d)')
    .option('--json', 'print what was deleted as JSON')
    .action(async (flags: PurgeFlags) => {
      await runPurge(flags, io);
    });
}
