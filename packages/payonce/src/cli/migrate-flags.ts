import { InvalidOption } from '../core/errors.js';
import { dialectNamed } from '../stores/sql/dialects.js';
import type { MigrateOptions } from '../stores/sql/migrate.js';
import { parseMigrationGroups } from '../stores/sql/migration-groups.js';
import type { SqlDialectName } from '../stores/sql/sql-dialect.js';
import { checkSchema } from '../stores/sql/table-namespace.js';
import { checkTablePrefix } from '../stores/sql/table-prefix.js';

/** The flags of `payonce migrate` besides the database URL, as either CLI parsed them. */
export interface MigrateFlags {
  /** `--only` values (each a comma-separated list of groups; the flag may repeat). */
  readonly only?: readonly string[];
  readonly printSql?: boolean;
  readonly dialect?: string;
  /** `--schema`: the PostgreSQL schema (MySQL/MariaDB: database) to create and put everything in. */
  readonly schema?: string;
  /** `--table-prefix`: what payonce's table names start with instead of `payonce_` (`SqlStoreOptions.tablePrefix`). */
  readonly tablePrefix?: string;
  /** True when `--database-url` itself was given (not a URL from the environment). */
  readonly databaseUrlFlag?: boolean;
}

/** What `payonce migrate` does: print the SQL of a dialect, or migrate the database. */
export type MigratePlan =
  | { readonly printSql: true; readonly dialect: SqlDialectName; readonly options: MigrateOptions }
  | { readonly printSql: false; readonly options: MigrateOptions };

/**
 * Checks the flags of `payonce migrate` and says what to do. Shared by the library's `payonce migrate` and
 * `@payonce/cli`'s, so both accept and refuse the same things.
 * @throws {InvalidOption} (`only`) an empty list or unknown group; (`dialect`) `--print-sql` without a known
 *   `--dialect`, or `--dialect` without `--print-sql`; (`database-url`) `--print-sql` with `--database-url`;
 *   (`schema`) a name that is not 1–63 letters, digits or `_`, or any with `--dialect sqlite`; (`tablePrefix`) a
 *   prefix that is not 1–24 lower-case letters, digits or `_` starting with a letter or `_`.
 */
export function planMigrate(flags: MigrateFlags): MigratePlan {
  const options: MigrateOptions = {
    ...(flags.only === undefined ? {} : { only: parseMigrationGroups(flags.only.join(',')) }),
    ...(flags.schema === undefined ? {} : { schema: flags.schema }),
    ...(flags.tablePrefix === undefined ? {} : { tablePrefix: checkTablePrefix(flags.tablePrefix) }),
  };
  // The name is checked now; whether the database has schemas once its dialect is known (SQLite has none).
  if (flags.schema !== undefined) checkSchema(flags.schema, 'postgres');
  if (!flags.printSql) {
    if (flags.dialect !== undefined) {
      throw new InvalidOption('dialect', 'is for --print-sql only (migrate reads the dialect from --database-url)');
    }
    return { printSql: false, options };
  }
  if (flags.databaseUrlFlag) {
    throw new InvalidOption('database-url', '--print-sql connects to no database; drop --database-url');
  }
  if (flags.dialect === undefined) {
    throw new InvalidOption('dialect', '--print-sql needs --dialect sqlite, postgres or mysql');
  }
  const dialect = dialectNamed(flags.dialect as SqlDialectName).name;
  checkSchema(options.schema, dialect);
  return { printSql: true, dialect, options };
}
