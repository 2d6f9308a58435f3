import { dialectNamed } from './dialects.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlDialectName } from './sql-dialect.js';

/**
 * The DDL of every payonce migration for `dialect`, oldest first, one statement per string and without a
 * trailing `;`: for applications that run their own migration tool instead of `payonce migrate`. Statements use
 * `if not exists`, so applying them to a database that already has the tables changes nothing.
 * @throws {InvalidOption} for a dialect other than `sqlite`, `postgres`, `mysql`.
 * @see docs/design.md §3 "Schema".
 * @example for (const ddl of schema('postgres')) await pool.query(ddl);
 */
export function schema(dialect: SqlDialectName): string[] {
  const { name } = dialectNamed(dialect);
  return ALL_MIGRATIONS.flatMap((migration) => migration.statements[name]);
}
