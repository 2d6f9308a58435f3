import type { SqlMigration } from './sql-migration.js';

/**
 * The reference service's business tables (`src/service`; the store itself never reads them):
 * `payonce_service_fulfilments` holds one row per fulfilment actually performed (what was shipped), and
 * `payonce_service_refunds` one row per refund recorded after a paid order was refunded. Neither has a unique
 * constraint on the order on purpose: exactly-once comes from the effect ledger (`payonce_effects`), so a broken
 * variant that fulfils twice shows as two rows instead of an error. Times are BIGINT Unix epoch ms, UTC.
 * Released: never edit; add `0007-…` instead.
 */
export const serviceFulfilments0006: SqlMigration = Object.freeze({
  name: '0006-service-fulfilments',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_service_fulfilments (
  id varchar(64) not null primary key,
  order_id varchar(64) not null,
  attempt_id varchar(64),
  job_id varchar(64),
  created_at bigint not null
)`,
      'create index if not exists payonce_service_fulfilments_order_idx on payonce_service_fulfilments (order_id)',
      `create table if not exists payonce_service_refunds (
  id varchar(64) not null primary key,
  order_id varchar(64) not null,
  attempt_id varchar(64),
  job_id varchar(64),
  created_at bigint not null
)`,
      'create index if not exists payonce_service_refunds_order_idx on payonce_service_refunds (order_id)',
    ],
    mysql: [
      `create table if not exists payonce_service_fulfilments (
  id varchar(64) not null primary key,
  order_id varchar(64) not null,
  attempt_id varchar(64) null,
  job_id varchar(64) null,
  created_at bigint not null,
  index payonce_service_fulfilments_order_idx (order_id)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
      `create table if not exists payonce_service_refunds (
  id varchar(64) not null primary key,
  order_id varchar(64) not null,
  attempt_id varchar(64) null,
  job_id varchar(64) null,
  created_at bigint not null,
  index payonce_service_refunds_order_idx (order_id)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_service_fulfilments (
  id text not null primary key,
  order_id text not null,
  attempt_id text,
  job_id text,
  created_at integer not null
)`,
      'create index if not exists payonce_service_fulfilments_order_idx on payonce_service_fulfilments (order_id)',
      `create table if not exists payonce_service_refunds (
  id text not null primary key,
  order_id text not null,
  attempt_id text,
  job_id text,
  created_at integer not null
)`,
      'create index if not exists payonce_service_refunds_order_idx on payonce_service_refunds (order_id)',
    ],
  }),
});
