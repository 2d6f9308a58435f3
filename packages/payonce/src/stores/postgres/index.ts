/**
 * `payonce/postgres`: the PostgreSQL receipt store (`pg`, an optional peer dependency).
 * @see docs/design.md §2–3.
 */

export { MissingPeer } from '../../core/import-peer.js';
export { isDuplicateKeyError } from '../sql/driver-error.js';
export type { MigrateOptions, MigrationReport } from '../sql/migrate.js';
export type { MigrationGroup } from '../sql/migration-groups.js';
export type { ReceiptsDatabase, ReceiptsTable } from '../sql/receipts-table.js';
export type { SqlBatching, SqlConnectOptions, SqlStoreOptions } from '../sql/sql-store.js';
export {
  type PostgresConnectOptions,
  type PostgresPoolConfig,
  PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.js';
export { MAX_PREPARED_TEXTS } from './prepared-statements.js';
