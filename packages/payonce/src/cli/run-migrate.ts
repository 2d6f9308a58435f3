import { describeTarget, parseDatabaseUrl } from '../stores/database-url.js';
import { openSqlStore } from '../stores/open-sql-store.js';
import type { MigrationReport } from '../stores/sql/migrate.js';

/** Where `runMigrate` writes its progress: one line per call (the newline is added by the writer). */
export interface MigrateOutput {
  out(line: string): void;
}

/**
 * `payonce migrate`: applies pending payonce migrations to the database at `databaseUrl` (an SQLite file path or
 * `sqlite:`/`file:` URL, `postgres://…`, `postgresql://…` or `mysql://…`) and writes each one it applied (or that
 * nothing was pending). Safe to run again. Returns the report.
 * @throws {InvalidDatabaseUrl} for an unsupported or malformed URL (the CLI exits with status 2).
 * @throws the driver's or migrator's error when the database cannot be reached or a migration fails (status 1).
 * @see docs/design.md §3 "Schema".
 */
export async function runMigrate(databaseUrl: string, io: MigrateOutput): Promise<MigrationReport> {
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
