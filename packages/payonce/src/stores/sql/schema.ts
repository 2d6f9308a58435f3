import { dialectNamed } from './dialects.js';
import type { MigrateOptions } from './migrate.js';
import { selectMigrations } from './migration-groups.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlDialectName } from './sql-dialect.js';
import { checkTablePrefix, prefixedStatement } from './table-prefix.js';

/**
 * The DDL of every payonce migration for `dialect`, oldest first, one statement per string and without a
 * trailing `;`: for applications that run their own migration tool instead of `payonce migrate`. Statements use
 * `if not exists`, so applying them to a database that already has the tables changes nothing.
 * `options.only` limits it to those groups' migrations (and the groups they need); `options.tablePrefix` names every
 * object with that prefix instead of `payonce_`; `migrationSql` gives the same as one script with the ledger rows
 * (and `options.schema`, which this list does not apply).
 * @throws {InvalidOption} for a dialect other than `sqlite`, `postgres`, `mysql`, (`only`) an unknown group, or an
 *   invalid `tablePrefix`.
 * @see docs/design.md §3 "Schema".
 * @example for (const ddl of schema('postgres')) await pool.query(ddl);
 */
export function schema(dialect: SqlDialectName, options: MigrateOptions = {}): string[] {
  const { name } = dialectNamed(dialect);
  const prefix = checkTablePrefix(options.tablePrefix);
  const selected = new Set(selectMigrations(options.only).migrations);
  return ALL_MIGRATIONS.filter((m) => selected.has(m.name)).flatMap((migration) =>
    migration.statements[name].map((statement) => prefixedStatement(prefix, statement)),
  );
}
