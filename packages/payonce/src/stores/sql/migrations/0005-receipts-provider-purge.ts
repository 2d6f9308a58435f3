import type { SqlMigration } from './sql-migration.js';

const INDEX = 'payonce_receipts_provider_finished_at_idx';

/**
 * Index (provider, finished_at) on the receipts table, for `purge({ provider })` (docs/design.md §3): a provider's purge
 * reads only that provider's old receipts instead of walking the (finished_at) index through every other
 * provider's, which in a store shared by HTTP keys (24 h) and webhook receipts (days) would be most of the table.
 * The (finished_at) index of 0001 stays and still drives the unscoped purge.
 *
 * Idempotent on every dialect, so `schema()` can be applied twice: `if not exists` on PostgreSQL and SQLite. MySQL 8
 * has no `create index if not exists` (MariaDB has), so on MySQL the statement is chosen from
 * `information_schema.statistics` and run as a prepared statement: the four strings must run on ONE connection,
 * in order (as `payonce migrate` does). On a large PostgreSQL table, create the index `concurrently` yourself
 * before migrating; this statement then does nothing. Released: never edit; add `0006-…`.
 */
export const receiptsProviderPurge0005: SqlMigration = Object.freeze({
  name: '0005-receipts-provider-purge',
  statements: Object.freeze({
    postgres: [`create index if not exists ${INDEX} on payonce_receipts (provider, finished_at)`],
    mysql: [
      `set @payonce_0005_ddl = if(
  exists(select 1 from information_schema.statistics
    where table_schema = database() and table_name = 'payonce_receipts' and index_name = '${INDEX}'),
  'do 0',
  'create index ${INDEX} on payonce_receipts (provider, finished_at)')`,
      'prepare payonce_0005 from @payonce_0005_ddl',
      'execute payonce_0005',
      'deallocate prepare payonce_0005',
    ],
    sqlite: [`create index if not exists ${INDEX} on payonce_receipts (provider, finished_at)`],
  }),
});
