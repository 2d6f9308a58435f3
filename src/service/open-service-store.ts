import { CliUsageError } from '../cli/cli-usage-error.js';
import { parseDatabaseUrl } from '../cli/database-url.js';
import { openSqlStore } from '../cli/open-sql-store.js';
import { InvalidOption } from '../core/errors.js';
import type { SqlStore } from '../stores/sql/sql-store.js';

/**
 * Opens the SQL store a database URL names (a SQLite file path or `sqlite:PATH` / `file:///PATH`,
 * `postgres://…`, `mysql://…`), as `payonce migrate` does; the caller owns it (`close()`). Not migrated.
 * @throws {InvalidOption} an unsupported or malformed URL (`databaseUrl`).
 * @throws the driver's error when the database cannot be opened.
 */
export async function openServiceStore(databaseUrl: string): Promise<SqlStore<unknown>> {
  let target: ReturnType<typeof parseDatabaseUrl>;
  try {
    target = parseDatabaseUrl(databaseUrl);
  } catch (error) {
    if (error instanceof CliUsageError) throw new InvalidOption('databaseUrl', error.message);
    throw error;
  }
  return (await openSqlStore(target)) as unknown as SqlStore<unknown>;
}
