import type { SqlDialectName } from '../sql-dialect.js';

/**
 * One versioned schema change: a name that sorts after every earlier one (`0001-receipts`, `0002-…`) and the
 * DDL statements for each dialect, one statement per string (mysql2 runs one statement per query). A released
 * migration is never edited; a change is a new file.
 */
export interface SqlMigration {
  readonly name: string;
  readonly statements: Readonly<Record<SqlDialectName, readonly string[]>>;
}
