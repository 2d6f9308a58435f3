import { dialectNamed } from './dialects.js';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, type MigrateOptions } from './migrate.js';
import { migrationGroupOf, selectMigrations } from './migration-groups.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlDialectName } from './sql-dialect.js';
import { checkSchema, qualifyStatement, quoteIdentifier } from './table-namespace.js';
import { checkTablePrefix, DEFAULT_TABLE_PREFIX } from './table-prefix.js';

/** The lock row Kysely's `Migrator` keeps in its lock table (kysely's `MIGRATION_LOCK_ID`). */
const LOCK_ROW_ID = 'migration_lock';

/** How each dialect quotes an identifier, and writes "insert unless the key exists" and "now as ISO 8601 UTC". */
const LEDGER_SQL: Readonly<
  Record<
    SqlDialectName,
    { quote(name: string): string; insertIgnore(table: string, values: string): string; now: string }
  >
> = Object.freeze({
  postgres: {
    quote: (name) => `"${name}"`,
    insertIgnore: (table, values) => `insert into ${table} ${values} on conflict do nothing`,
    now: `to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  },
  mysql: {
    quote: (name) => `\`${name}\``,
    insertIgnore: (table, values) => `insert ignore into ${table} ${values}`,
    now: `concat(replace(cast(utc_timestamp(3) as char), ' ', 'T'), 'Z')`,
  },
  sqlite: {
    quote: (name) => `"${name}"`,
    insertIgnore: (table, values) => `insert or ignore into ${table} ${values}`,
    now: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  },
});

/** The ledger tables as Kysely's `Migrator` creates them, and its lock row. */
function ledgerStatements(dialect: SqlDialectName): string[] {
  const { quote, insertIgnore } = LEDGER_SQL[dialect];
  return [
    `create table if not exists ${MIGRATION_TABLE} (name varchar(255) not null primary key, ${quote('timestamp')} varchar(255) not null)`,
    `create table if not exists ${MIGRATION_LOCK_TABLE} (id varchar(255) not null primary key, is_locked integer not null default 0)`,
    insertIgnore(MIGRATION_LOCK_TABLE, `(id, is_locked) values ('${LOCK_ROW_ID}', 0)`),
  ];
}

function recordStatement(dialect: SqlDialectName, migration: string): string {
  const { quote, insertIgnore, now } = LEDGER_SQL[dialect];
  return insertIgnore(MIGRATION_TABLE, `(name, ${quote('timestamp')}) values ('${migration}', ${now})`);
}

/**
 * The plain SQL `payonce migrate --print-sql` prints, for applications whose own migration tool (Flyway, prisma
 * migrate, drizzle-kit, Knex, TypeORM) applies payonce's schema: a header, the ledger tables of `payonce migrate`
 * (`payonce_migration`, `payonce_migration_lock`), then each selected migration, oldest first, under a
 * `-- payonce migration <name> (group <group>)` comment, each statement ended by `;` and followed by the ledger row
 * recording it, so a later `payonce migrate` or `store.migrate()` skips it. Every statement is idempotent (`if not
 * exists`, insert-or-ignore). PostgreSQL's `0009` holds a `$$`-quoted function body (psql, Flyway and node-postgres
 * take it as one statement). Without `options.schema` table names are unqualified (they land in the session's
 * schema/database); with it the script starts with `create schema if not exists` and qualifies every table, ledger
 * table and function with it (`"payonce".payonce_receipts`; MySQL `` `payonce`.payonce_receipts ``). With
 * `options.tablePrefix` every name that starts with `payonce_` (tables, ledger, indexes, constraints, trigger,
 * function, channel) starts with that prefix instead (`billing_receipts`), so a migration tool can filter on it.
 * @param options `only`: the groups to print, plus those they need (see `selectMigrations`); default every group.
 *   `schema`: the PostgreSQL schema / MySQL database to qualify with; `tablePrefix`: see `MigrateOptions`.
 * @throws {InvalidOption} for an unknown dialect, (`only`) an empty list or unknown group name, an invalid
 *   `schema` (any on SQLite), or an invalid `tablePrefix`.
 * @see docs/your-stack.md "Migration tools".
 * @example writeFileSync('V1__payonce.sql', migrationSql('postgres', { only: ['receipts', 'outbox'] }));
 */
export function migrationSql(dialect: SqlDialectName, options: MigrateOptions = {}): string {
  const { name } = dialectNamed(dialect);
  const schema = checkSchema(options.schema, name);
  const prefix = checkTablePrefix(options.tablePrefix);
  const selection = selectMigrations(options.only);
  const qualified = (statement: string): string => `${qualifyStatement(name, schema, statement, prefix)};`;
  const lines = [
    `-- payonce schema for ${name}: groups ${selection.groups.join(', ')} (payonce migrate --print-sql).`,
    `-- Apply in this order. Every statement is idempotent; the ${prefix}migration rows let a later`,
    '-- `payonce migrate` (or store.migrate()) skip what this script applied.',
  ];
  if (prefix !== DEFAULT_TABLE_PREFIX) {
    lines.push(
      `-- Every payonce table, index and function is named ${prefix}… (give the stores { tablePrefix: '${prefix}' }).`,
    );
  }
  if (schema !== null) {
    const where = name === 'mysql' ? 'database' : 'schema';
    lines.push(
      `-- Every payonce table, sequence and function is in the ${where} ${schema} (give the stores { schema: '${schema}' }).`,
      '',
      `create schema if not exists ${quoteIdentifier(name, schema)};`,
    );
  }
  lines.push('', '-- payonce migration ledger (payonce migrate keeps it; Kysely Migrator tables)');
  lines.push(...ledgerStatements(name).map(qualified));
  const selected = new Set(selection.migrations);
  for (const migration of ALL_MIGRATIONS.filter((m) => selected.has(m.name))) {
    lines.push('', `-- payonce migration ${migration.name} (group ${migrationGroupOf(migration.name)})`);
    for (const statement of migration.statements[name]) lines.push(qualified(statement));
    lines.push(qualified(recordStatement(name, migration.name)));
  }
  return `${lines.join('\n')}\n`;
}
