import type { Command } from 'commander';
import { runMigrate } from 'payonce/internal/cli/run-migrate.js';
import type { CliIo } from '../cli-io.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';

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
