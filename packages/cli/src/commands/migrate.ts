import { type Command, Option } from 'commander';
import { type MigratePlan, planMigrate } from 'payonce/internal/cli/migrate-flags.js';
import { printMigrationSql, runMigrate } from 'payonce/internal/cli/run-migrate.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { MIGRATION_GROUPS } from 'payonce/internal/stores/sql/migration-groups.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';

interface MigrateCommandOptions {
  databaseUrl?: string;
  only?: string[];
  printSql?: boolean;
  dialect?: string;
  schema?: string;
  tablePrefix?: string;
}

function planOf(options: MigrateCommandOptions): MigratePlan {
  try {
    return planMigrate({ ...options, databaseUrlFlag: options.databaseUrl !== undefined });
  } catch (error) {
    if (error instanceof InvalidOption) throw new CliUsageError(error.message);
    throw error;
  }
}

/** Registers `migrate` on the `payonce` program. */
export function registerMigrate(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description(
      'apply pending payonce migrations (receipts, payments, outbox, webhook journal, service) to SQLite, PostgreSQL or MySQL/MariaDB, or print their SQL',
    )
    .addOption(
      databaseUrlOption('SQLite file path (or sqlite:PATH, file:///PATH), postgres://…, postgresql://… or mysql://…'),
    )
    .addOption(
      new Option(
        '--only <groups>',
        `only these groups (comma-separated, of ${MIGRATION_GROUPS.join(', ')}) and the groups they need; default: all`,
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(new Option('--print-sql', 'print the SQL (ledger tables, then each migration) and connect to nothing'))
    .addOption(new Option('--dialect <dialect>', 'with --print-sql: sqlite, postgres or mysql'))
    .addOption(
      new Option(
        '--schema <name>',
        'the PostgreSQL schema (MySQL: database) of every payonce table, created if missing; not on SQLite',
      ),
    )
    .addOption(
      new Option(
        '--table-prefix <prefix>',
        'what every payonce table, index and ledger name starts with instead of payonce_ (e.g. billing_); give the stores the same',
      ),
    )
    .action(async (options: MigrateCommandOptions) => {
      const plan = planOf(options);
      if (plan.printSql) {
        printMigrationSql(plan.dialect, io, plan.options);
        return;
      }
      await runMigrate(databaseUrlOf(options.databaseUrl, process.env), io, plan.options);
    });
}
