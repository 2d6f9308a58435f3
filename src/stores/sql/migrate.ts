import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { dialectNamed } from './dialects.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlMigration } from './migrations/sql-migration.js';
import type { SqlDialectName } from './sql-dialect.js';

/** Kysely `Migrator` bookkeeping tables payonce uses (kept apart from the application's own `kysely_migration`). */
export const MIGRATION_TABLE = 'payonce_migration';
export const MIGRATION_LOCK_TABLE = 'payonce_migration_lock';

/** What `migrate` did: migration names applied now, and those found already applied. */
export interface MigrationReport {
  readonly applied: readonly string[];
  readonly alreadyApplied: readonly string[];
}

function kyselyMigration(migration: SqlMigration, dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const ddl of migration.statements[dialect]) await sql.raw(ddl).execute(db);
    },
  };
}

/**
 * Applies every pending payonce migration to `db` with Kysely's own `Migrator` (bookkeeping in
 * `payonce_migration` / `payonce_migration_lock`, which serialises concurrent runs). Safe to run any number of
 * times: applied migrations are skipped. On PostgreSQL everything goes into `current_schema()` (set the
 * `search_path` to use another schema) inside one transaction.
 * @param db any Kysely instance (not a transaction) connected to the target database.
 * @param dialect which DDL to use: `sqlite`, `postgres` or `mysql` (MariaDB too).
 * @throws {InvalidOption} for an unknown dialect.
 * @throws {Error} `payonce migration <name> failed: …` with the driver error as `cause`; earlier migrations of
 *   the run stay applied.
 * @see SPEC §3 "Schema".
 * @example const { applied } = await migrate(db, 'postgres');
 */
export async function migrate<DB>(db: Kysely<DB>, dialect: SqlDialectName): Promise<MigrationReport> {
  const target = dialectNamed(dialect);
  const kysely = db as unknown as Kysely<unknown>;
  const migrations = Object.fromEntries(ALL_MIGRATIONS.map((m) => [m.name, kyselyMigration(m, target.name)]));
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({
    db: kysely,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    migrationTableSchema: await target.migrationTableSchema(kysely),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? '(setup)';
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`payonce migration ${failed} failed: ${reason}`, { cause: error });
  }
  const applied = results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
  const alreadyApplied = ALL_MIGRATIONS.map((m) => m.name).filter((name) => !applied.includes(name));
  return Object.freeze({ applied: Object.freeze(applied), alreadyApplied: Object.freeze(alreadyApplied) });
}
