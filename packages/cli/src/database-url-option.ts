import { Option } from 'commander';
import { databaseUrlFromEnv } from 'payonce/internal/stores/database-url.js';
import { CliUsageError } from './cli-usage-error.js';

/**
 * The `--database-url <url>` option every command that opens the database shares; its help names where else
 * the URL is read from: `PAYONCE_DATABASE_URL`, then `DATABASE_URL` (resolved by `databaseUrlOf`).
 */
export function databaseUrlOption(description: string): Option {
  return new Option('--database-url <url>', `${description} (env: PAYONCE_DATABASE_URL, else DATABASE_URL)`);
}

/**
 * The database URL of a command: the `--database-url` flag when given (even blank: `parseDatabaseUrl` then says
 * it is empty), else `PAYONCE_DATABASE_URL`, else `DATABASE_URL` (empty variables count as unset), else `fallback`.
 * @throws {CliUsageError} none of them is set and there is no `fallback`.
 */
export function databaseUrlOf(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  fallback?: string,
): string {
  const value = flag ?? databaseUrlFromEnv(env) ?? fallback;
  if (value === undefined) {
    throw new CliUsageError('--database-url (or PAYONCE_DATABASE_URL, or DATABASE_URL) is required');
  }
  return value;
}
