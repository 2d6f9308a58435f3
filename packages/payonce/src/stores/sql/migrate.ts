import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from 'kysely';
import { dialectNamed } from './dialects.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlMigration } from './migrations/sql-migration.js';
import { withRetry } from './retry.js';
import { withSchemaScopedIntrospection } from './schema-scoped-introspection.js';
import type { SqlDialectName } from './sql-dialect.js';

/** How long a migration waits for another process's migration lock (SQLite `begin immediate`), ms. */
const MIGRATION_LOCK_WAIT_MS = 30_000;

/** Kysely `Migrator` bookkeeping tables payonce uses (kept apart from the application's own `kysely_migration`). */
export const MIGRATION_TABLE = 'payonce_migration';
/** The lock table Kysely's `Migrator` uses so two concurrent `payonce migrate` runs apply each migration once. */
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

/** Runs `run` inside `begin` (retried while the lock is busy); commits on success, rolls back on error. */
async function holdingWriteLock(
  db: Kysely<unknown>,
  begin: string,
  isTransient: (error: unknown) => boolean,
  run: () => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  // Another process may be migrating the same file: wait for its lock asynchronously, up to 30 s.
  await withRetry(() => sql.raw(begin).execute(db), isTransient, true, MIGRATION_LOCK_WAIT_MS);
  const outcome = await run().catch((error: unknown): MigrationResultSet => ({ error }));
  await sql.raw(outcome.error === undefined ? 'commit' : 'rollback').execute(db);
  return outcome;
}

/**
 * Applies every pending payonce migration to `db` with Kysely's own `Migrator` (bookkeeping in
 * `payonce_migration` / `payonce_migration_lock`). Safe to run any number of times: applied migrations are skipped, and concurrent runs are serialised (PostgreSQL advisory lock, MySQL
 * `GET_LOCK`, SQLite `BEGIN IMMEDIATE`). PostgreSQL and SQLite run the whole migration in one transaction;
 * on PostgreSQL everything goes into `current_schema()` (set the `search_path` to use another schema). Run it
 * at start-up, before the application uses `db`: on SQLite the run holds the write lock of `db`'s connection.
 * @param db any Kysely instance (not a transaction) connected to the target database.
 * @param dialect which DDL to use: `sqlite`, `postgres` or `mysql` (MariaDB too).
 * @throws {InvalidOption} for an unknown dialect.
 * @throws {Error} `payonce migration <name> failed: …` with the driver error as `cause`; on PostgreSQL and SQLite
 *   the whole run is rolled back, on MySQL (no transactional DDL) earlier migrations of the run stay applied.
 * @see docs/design.md §3 "Schema".
 * @example const { applied } = await migrate(db, 'postgres');
 */
export async function migrate<DB>(db: Kysely<DB>, dialect: SqlDialectName): Promise<MigrationReport> {
  const target = dialectNamed(dialect);
  const kysely = db as unknown as Kysely<unknown>;
  const migrations = Object.fromEntries(ALL_MIGRATIONS.map((m) => [m.name, kyselyMigration(m, target.name)]));
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const schema = await target.migrationTableSchema(kysely);
  const migrator = new Migrator({
    // On PostgreSQL the migrator looks for its tables in our schema only (another schema dropped meanwhile cannot
    // fail the run: withSchemaScopedIntrospection).
    db: schema === undefined ? kysely : withSchemaScopedIntrospection(kysely, schema),
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    migrationTableSchema: schema,
  });
  const begin = target.migrationTransaction;
  const outcome =
    begin === null
      ? await migrator.migrateToLatest()
      : await holdingWriteLock(kysely, begin, target.isTransientError, () => migrator.migrateToLatest());
  const { error, results = [] } = outcome;
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? '(setup)';
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`payonce migration ${failed} failed: ${reason}`, { cause: error });
  }
  const applied = results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
  const alreadyApplied = ALL_MIGRATIONS.map((m) => m.name).filter((name) => !applied.includes(name));
  return Object.freeze({ applied: Object.freeze(applied), alreadyApplied: Object.freeze(alreadyApplied) });
}
