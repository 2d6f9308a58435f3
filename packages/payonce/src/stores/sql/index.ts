/**
 * `payonce/sql`: the SQL store base — the receipts DDL for every SQL dialect, the migration runner behind `payonce migrate`,
 * and the shared Kysely store the SQLite, PostgreSQL and MySQL stores are built on.
 * @see docs/design.md §3 "Schema".
 */
export { isDuplicateKeyError } from './driver-error.js';
export { joinTransaction, type SqlExecutor, type SqlExecutorResult } from './joined-transaction.js';
export {
  MIGRATION_LOCK_TABLE,
  MIGRATION_TABLE,
  type MigrateOptions,
  type MigrationReport,
  migrate,
} from './migrate.js';
export {
  MIGRATION_GROUPS,
  type MigrationGroup,
  type MigrationSelection,
  type PulledInGroup,
  selectMigrations,
} from './migration-groups.js';
export { migrationSql } from './migration-script.js';
export { RECEIPTS_TABLE, type ReceiptsDatabase, type ReceiptsTable } from './receipts-table.js';
export { schema } from './schema.js';
export { SQL_DIALECT_NAMES, type SqlDialect, type SqlDialectName } from './sql-dialect.js';
export { type SqlBatching, type SqlConnectOptions, SqlStore, type SqlStoreOptions } from './sql-store.js';
export type { StackTransactions } from './stack-transactions.js';
