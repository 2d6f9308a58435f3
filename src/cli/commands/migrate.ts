import type { Command } from 'commander';
import { describeTarget, parseDatabaseUrl } from '../../stores/database-url.js';
import { openSqlStore } from '../../stores/open-sql-store.js';
import type { MigrationReport } from '../../stores/sql/migrate.js';
import type { CliIo } from '../cli-io.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';

/**
 * `payonce migrate --database-url URL` (or `PAYONCE_DATABASE_URL`, else `DATABASE_URL`): applies pending payonce migrations and prints each one it applied
 * (or that nothing was pending). Safe to run again. Returns the report.
 * @throws {InvalidDatabaseUrl} for an unsupported or malformed URL (the CLI exits with status 2).
 * @throws the driver's or migrator's error when the database cannot be reached or a migration fails (status 1).
 * @see docs/design.md §3 "Schema".
 */
export async function runMigrate(databaseUrl: string, io: CliIo): Promise<MigrationReport> {
  const target = parseDatabaseUrl(databaseUrl);
  io.out(`payonce migrate: ${describeTarget(target)}`);
  const store = await openSqlStore(target);
  try {
    const report = await store.migrate();
    for (const name of report.applied) io.out(`applied ${name}`);
    if (report.applied.length === 0) {
      io.out(`nothing to apply; already applied: ${report.alreadyApplied.join(', ')}`);
    }
    return report;
  } finally {
    await store.close();
  }
}

/** Registers `migrate` on the `payonce` program. */
export function registerMigrate(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description(
      'apply pending payonce migrations (receipts, payments, outbox, webhook journal) to SQLite, PostgreSQL or MySQL/MariaDB',
    )
    .addOption(
      databaseUrlOption('SQLite file path (or sqlite:PATH, file:///PATH), postgres://…, postgresql://… or mysql://…'),
    )
    .action(async (options: { databaseUrl?: string }) => {
      await runMigrate(databaseUrlOf(options.databaseUrl, process.env), io);
    });
}
