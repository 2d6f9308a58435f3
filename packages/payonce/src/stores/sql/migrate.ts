import { type Kysely, sql } from 'kysely';
import { dialectNamed } from './dialects.js';
import {
  type KyselyMigration,
  type KyselyMigrationResultSet,
  type KyselyMigratorProps,
  kyselyMigratorClass,
} from './kysely-migrator.js';
import { ledgerView } from './ledger-view.js';
import { type MigrationGroup, selectMigrations } from './migration-groups.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';
import type { SqlMigration } from './migrations/sql-migration.js';
import { withRetry } from './retry.js';
import { withSchemaScopedIntrospection } from './schema-scoped-introspection.js';
import type { SqlDialectName } from './sql-dialect.js';
import { checkSchema, qualifyStatement } from './table-namespace.js';
import { checkTablePrefix, prefixedName } from './table-prefix.js';

/** How long a migration waits for another process's migration lock (SQLite `begin immediate`), ms. */
const MIGRATION_LOCK_WAIT_MS = 30_000;

/** Kysely `Migrator` bookkeeping tables payonce uses (kept apart from the application's own `kysely_migration`). */
export const MIGRATION_TABLE = 'payonce_migration';
/** The lock table Kysely's `Migrator` uses so two concurrent `payonce migrate` runs apply each migration once. */
export const MIGRATION_LOCK_TABLE = 'payonce_migration_lock';

/** What `migrate` did, each list oldest first. */
export interface MigrationReport {
  /** Migrations applied by this run. */
  readonly applied: readonly string[];
  /** Migrations found applied already (by an earlier run, of any groups). */
  readonly alreadyApplied: readonly string[];
  /** Migrations of the groups this run did not select that are still not applied (`[]` on a run of every group). */
  readonly notSelected: readonly string[];
}

/** Options of `migrate` and `store.migrate`. */
export interface MigrateOptions {
  /**
   * Apply only these groups' migrations, plus those of the groups they need (`payments` needs `receipts` and
   * `outbox`; see `selectMigrations`); default: every group. A later run with more groups (or none named)
   * applies what was skipped, oldest first.
   */
  readonly only?: readonly MigrationGroup[];
  /**
   * The PostgreSQL schema (MySQL/MariaDB: database) to create, if missing, and put everything in: tables,
   * sequences, the finish trigger and its function, and the migration ledger. Give the stores the same `schema`.
   * @default none: the connection's `current_schema()` (PostgreSQL) or database (MySQL), as before
   * @throws {InvalidOption} (`schema`) on SQLite, or for a name that is not 1–63 letters, digits or `_`.
   */
  readonly schema?: string;
  /**
   * What every table, index, constraint, trigger, function and the ledger (`<prefix>migration`,
   * `<prefix>migration_lock`) is named with instead of `payonce_` (see `SqlStoreOptions.tablePrefix`). Give the
   * stores the same `tablePrefix`. Two prefixes in one database are two independent sets of tables, each with its own
   * ledger.
   * @default 'payonce_'
   * @throws {InvalidOption} (`tablePrefix`) for a value that is not 1–24 lower-case letters, digits or `_` starting
   *   with a letter or `_`.
   */
  readonly tablePrefix?: string;
}

function kyselyMigration(
  migration: SqlMigration,
  dialect: SqlDialectName,
  schema: string | null,
  tablePrefix: string,
): KyselyMigration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const ddl of migration.statements[dialect]) {
        await sql.raw(qualifyStatement(dialect, schema, ddl, tablePrefix)).execute(db);
      }
    },
  };
}

/** Runs `run` inside `begin` (retried while the lock is busy); commits on success, rolls back on error. */
async function holdingWriteLock(
  db: Kysely<unknown>,
  begin: string,
  isTransient: (error: unknown) => boolean,
  run: () => Promise<KyselyMigrationResultSet>,
): Promise<KyselyMigrationResultSet> {
  // Another process may be migrating the same file: wait for its lock asynchronously, up to 30 s.
  await withRetry(() => sql.raw(begin).execute(db), isTransient, true, MIGRATION_LOCK_WAIT_MS);
  const outcome = await run().catch((error: unknown): KyselyMigrationResultSet => ({ error }));
  await sql.raw(outcome.error === undefined ? 'commit' : 'rollback').execute(db);
  return outcome;
}

/**
 * Applies every pending payonce migration (or those of `options.only`'s groups) to `db` with Kysely's own `Migrator` (bookkeeping in
 * `payonce_migration` / `payonce_migration_lock`). Safe to run any number of times: applied migrations are skipped, and concurrent runs are serialised (PostgreSQL advisory lock, MySQL
 * `GET_LOCK`, SQLite `BEGIN IMMEDIATE`). PostgreSQL and SQLite run the whole migration in one transaction;
 * on PostgreSQL everything goes into `options.schema`, else `current_schema()`. Run it
 * at start-up, before the application uses `db`: on SQLite the run holds the write lock of `db`'s connection.
 * @param db any Kysely instance (not a transaction) connected to the target database.
 * @param dialect which DDL to use: `sqlite`, `postgres` or `mysql` (MariaDB too).
 * Migrations of groups left out are skipped, not recorded: a later run that selects them applies them then.
 * @param options `only`: the groups to migrate; `schema`: the schema/database to create and use; `tablePrefix`: what
 *   payonce's names start with instead of `payonce_` (see `MigrateOptions`).
 * @throws {InvalidOption} for an unknown dialect, (`only`) an empty list or unknown group name, an invalid
 *   `schema` (any on SQLite), or an invalid `tablePrefix`.
 * @throws {Error} `payonce migration <name> failed: …` with the driver error as `cause`; on PostgreSQL and SQLite
 *   the whole run is rolled back, on MySQL (no transactional DDL) earlier migrations of the run stay applied.
 * @see docs/design.md §3 "Schema".
 * @example const { applied } = await migrate(db, 'postgres');
 */
export async function migrate<DB>(
  db: Kysely<DB>,
  dialect: SqlDialectName,
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const target = dialectNamed(dialect);
  const namespace = checkSchema(options.schema, target.name);
  const prefix = checkTablePrefix(options.tablePrefix);
  const ledgerTable = prefixedName(prefix, MIGRATION_TABLE);
  const selected = new Set(selectMigrations(options.only).migrations);
  const kysely = db as unknown as Kysely<unknown>;
  const migrations = Object.fromEntries(
    ALL_MIGRATIONS.filter((m) => selected.has(m.name)).map((m) => [
      m.name,
      kyselyMigration(m, target.name, namespace, prefix),
    ]),
  );
  const provider: KyselyMigratorProps['provider'] = { getMigrations: async () => migrations };
  // The migrator sees the selected migrations and no ledger row of the others (it refuses rows it has no migration for).
  const ledger = ledgerView(ledgerTable, new Set(ALL_MIGRATIONS.map((m) => m.name).filter((n) => !selected.has(n))));
  const viewed = kysely.withPlugin(ledger.plugin);
  // Kysely's Migrator creates `migrationTableSchema` when missing, before anything else of the run.
  const schema = namespace ?? (await target.migrationTableSchema(kysely));
  const Migrator = await kyselyMigratorClass();
  const migrator = new Migrator({
    // On PostgreSQL the migrator looks for its tables in our schema only (another schema dropped meanwhile cannot
    // fail the run: withSchemaScopedIntrospection).
    db: schema === undefined ? viewed : withSchemaScopedIntrospection(viewed, schema),
    provider,
    migrationTableName: ledgerTable,
    migrationLockTableName: prefixedName(prefix, MIGRATION_LOCK_TABLE),
    migrationTableSchema: schema,
    // A group migrated later runs its migrations after newer ones of other groups; within a group they stay in order.
    allowUnorderedMigrations: true,
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
  const before = new Set(ledger.executedBefore());
  const names = ALL_MIGRATIONS.map((m) => m.name);
  const alreadyApplied = names.filter((name) => before.has(name));
  const notSelected = names.filter((name) => !before.has(name) && !applied.includes(name) && !selected.has(name));
  return Object.freeze({
    applied: Object.freeze(applied),
    alreadyApplied: Object.freeze(alreadyApplied),
    notSelected: Object.freeze(notSelected),
  });
}
