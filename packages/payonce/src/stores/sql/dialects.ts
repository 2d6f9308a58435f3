import { InvalidOption } from '../../core/errors.js';
import { mysqlDialect } from './mysql-dialect.js';
import { postgresDialect } from './postgres-dialect.js';
import type { SqlDialect, SqlDialectName } from './sql-dialect.js';
import { sqliteDialect } from './sqlite-dialect.js';

const DIALECTS: Readonly<Record<SqlDialectName, SqlDialect>> = Object.freeze({
  sqlite: sqliteDialect,
  postgres: postgresDialect,
  mysql: mysqlDialect,
});

/**
 * The dialect object for `name`.
 * @throws {InvalidOption} if `name` is not `sqlite`, `postgres` or `mysql` (checked at run time for JS callers).
 */
export function dialectNamed(name: SqlDialectName): SqlDialect {
  const dialect = Object.hasOwn(DIALECTS, name) ? DIALECTS[name] : undefined;
  if (!dialect) throw new InvalidOption('dialect', `must be sqlite, postgres or mysql, got ${String(name)}`);
  return dialect;
}
