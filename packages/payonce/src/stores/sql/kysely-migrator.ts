import type { Kysely } from 'kysely';
import * as kyselyRoot from 'kysely';

/** One migration as Kysely's `Migrator` runs it (the part payonce writes: `up` only). */
export interface KyselyMigration {
  up(db: Kysely<unknown>): Promise<void>;
}

/** One migration's result in a `MigrationResultSet` of Kysely's `Migrator`. */
export interface KyselyMigrationResult {
  readonly migrationName: string;
  readonly direction: 'Up' | 'Down';
  readonly status: 'Success' | 'Error' | 'NotExecuted';
}

/** What Kysely's `Migrator.migrateToLatest` resolves with (it never rejects: a failure is its `error`). */
export interface KyselyMigrationResultSet {
  readonly error?: unknown;
  readonly results?: readonly KyselyMigrationResult[];
}

/** The options of Kysely's `Migrator` payonce sets (the same in Kysely 0.28 and 0.29). */
export interface KyselyMigratorProps {
  readonly db: Kysely<unknown>;
  readonly provider: { getMigrations(): Promise<Record<string, KyselyMigration>> };
  readonly migrationTableName: string;
  readonly migrationLockTableName: string;
  readonly migrationTableSchema?: string;
  readonly allowUnorderedMigrations: boolean;
}

/** Kysely's `Migrator` (the part payonce calls). */
export interface KyselyMigrator {
  migrateToLatest(): Promise<KyselyMigrationResultSet>;
}

type MigratorClass = new (props: KyselyMigratorProps) => KyselyMigrator;

/** The subpath Kysely 0.29 moved its migrations to; a variable, so the compiler does not resolve it against 0.28. */
const MIGRATION_ENTRY: string = 'kysely/migration';

let loaded: Promise<MigratorClass> | undefined;

/**
 * Kysely's `Migrator` class from the application's kysely: the root entry up to 0.28, `kysely/migration` from 0.29
 * (0.29 no longer exports it from the root; see kysely's 0.29 release notes). Typed here by the part payonce uses,
 * which is the same in both, so payonce builds against either.
 * @throws {Error} the installed kysely exports no `Migrator` from either entry (a kysely outside the peer range).
 */
export function kyselyMigratorClass(): Promise<MigratorClass> {
  loaded ??= (async () => {
    const fromRoot: unknown = (kyselyRoot as Record<string, unknown>).Migrator;
    if (typeof fromRoot === 'function') return fromRoot as MigratorClass;
    const migration = (await import(MIGRATION_ENTRY)) as { Migrator?: unknown };
    if (typeof migration.Migrator !== 'function') {
      throw new Error('kysely exports no Migrator (payonce needs kysely >=0.28.0 <0.30.0)');
    }
    return migration.Migrator as MigratorClass;
  })();
  return loaded;
}
