import { describeTarget, parseDatabaseUrl } from '../stores/database-url.js';
import { openSqlStore } from '../stores/open-sql-store.js';
import type { MigrateOptions, MigrationReport } from '../stores/sql/migrate.js';
import { type MigrationSelection, selectMigrations } from '../stores/sql/migration-groups.js';
import { migrationSql } from '../stores/sql/migration-script.js';
import type { SqlDialectName } from '../stores/sql/sql-dialect.js';
import { checkSchema } from '../stores/sql/table-namespace.js';
import { checkTablePrefix, DEFAULT_TABLE_PREFIX } from '../stores/sql/table-prefix.js';

/** Where `runMigrate` writes its progress: one line per call (the newline is added by the writer). */
export interface MigrateOutput {
  out(line: string): void;
}

/** The lines saying which groups `--only` selected and which it pulled in, and why. */
function selectionLines(selection: MigrationSelection): string[] {
  return [
    `groups: ${selection.groups.join(', ')}`,
    ...selection.pulledIn.map(
      ({ group, neededBy, because }) => `${neededBy} needs ${group} (${because}): migrating ${group} too`,
    ),
  ];
}

/**
 * `payonce migrate`: applies pending payonce migrations (all, or those of `options.only`'s groups and the groups
 * they need) to the database at `databaseUrl` (an SQLite file path or `sqlite:`/`file:` URL, `postgres://…`,
 * `postgresql://…` or `mysql://…`) and writes the groups pulled in, each migration it applied (or that nothing
 * was pending), and the migrations left out. Safe to run again; a later run with more groups adds theirs.
 * Returns the report.
 * With `options.schema` everything goes into that PostgreSQL schema (MySQL: database), created if missing; with
 * `options.tablePrefix` every table (and the ledger) is named with that prefix instead of `payonce_`.
 * @throws {InvalidOption} (`only`) for an empty list or unknown group name, (`schema`) an invalid name or any on
 *   SQLite, (`tablePrefix`) an invalid prefix, before connecting (the CLI exits 2).
 * @throws {InvalidDatabaseUrl} for an unsupported or malformed URL (the CLI exits with status 2).
 * @throws the driver's or migrator's error when the database cannot be reached or a migration fails (status 1).
 * @see docs/design.md §3 "Schema"; docs/your-stack.md "Migration tools".
 */
export async function runMigrate(
  databaseUrl: string,
  io: MigrateOutput,
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const selection = options.only === undefined ? undefined : selectMigrations(options.only);
  const target = parseDatabaseUrl(databaseUrl);
  checkSchema(options.schema, target.dialect);
  const prefix = checkTablePrefix(options.tablePrefix);
  const where =
    (options.schema === undefined ? '' : ` (${target.dialect === 'mysql' ? 'database' : 'schema'} ${options.schema})`) +
    (prefix === DEFAULT_TABLE_PREFIX ? '' : ` (table prefix ${prefix})`);
  io.out(`payonce migrate: ${describeTarget(target)}${where}`);
  if (selection !== undefined) for (const line of selectionLines(selection)) io.out(line);
  const store = await openSqlStore(target, { schema: options.schema, tablePrefix: prefix });
  try {
    const report = await store.migrate(options);
    for (const name of report.applied) io.out(`applied ${name}`);
    if (report.applied.length === 0) {
      io.out(`nothing to apply; already applied: ${report.alreadyApplied.join(', ')}`);
    }
    if (report.notSelected.length > 0) {
      io.out(`not selected, not applied: ${report.notSelected.join(', ')}`);
    }
    return report;
  } finally {
    await store.close();
  }
}

/**
 * `payonce migrate --print-sql --dialect <dialect> [--only …]`: writes `migrationSql(dialect, options)` (the ledger
 * tables, then each selected migration under a header comment) without connecting to any database.
 * @throws {InvalidOption} for an unknown dialect, or (`only`) an empty list or unknown group name (the CLI exits 2).
 * @see docs/your-stack.md "Migration tools".
 */
export function printMigrationSql(dialect: SqlDialectName, io: MigrateOutput, options: MigrateOptions = {}): void {
  io.out(migrationSql(dialect, options).replace(/\n$/, ''));
}
