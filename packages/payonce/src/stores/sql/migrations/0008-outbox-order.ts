import type { SqlMigration } from './sql-migration.js';

/**
 * The outbox order of the relay (`src/relay`): one row per outbox job enqueued with an aggregate key
 * (`Outbox.enqueueOnce(…, { aggregateKey })`), holding that key and a sequence number the database assigns at
 * insert (PostgreSQL `bigserial`, MySQL `auto_increment`, SQLite `integer primary key autoincrement`). The relay
 * publishes the jobs of one aggregate in `seq` order. A side table rather than new outbox columns, so the
 * statements stay `if not exists` (SQLite has no `add column if not exists`). Released: never edit; add `0009-…`.
 */
export const outboxOrder0008: SqlMigration = Object.freeze({
  name: '0008-outbox-order',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_outbox_order (
  seq bigserial not null primary key,
  job_id varchar(36) not null unique,
  aggregate_key varchar(200) not null
)`,
      'create index if not exists payonce_outbox_order_aggregate_idx on payonce_outbox_order (aggregate_key, seq)',
    ],
    mysql: [
      `create table if not exists payonce_outbox_order (
  seq bigint not null auto_increment primary key,
  job_id varchar(36) character set ascii collate ascii_bin not null,
  aggregate_key varchar(200) not null,
  unique key payonce_outbox_order_job (job_id),
  index payonce_outbox_order_aggregate_idx (aggregate_key, seq)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_outbox_order (
  seq integer primary key autoincrement,
  job_id text not null unique,
  aggregate_key text not null
)`,
      'create index if not exists payonce_outbox_order_aggregate_idx on payonce_outbox_order (aggregate_key, seq)',
    ],
  }),
});
