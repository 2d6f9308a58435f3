import type { SqlMigration } from './sql-migration.js';

/**
 * The operator console's action journal (`src/service/admin`; the store itself never reads it):
 * `payonce_admin_actions` holds one row per operator action taken through `/admin/api` (release a stuck claim,
 * retry a failed receipt, rerun a dead job, reconcile an attempt, replay deliveries), with who took it, when, on
 * what, whether it was a dry run, and its redacted result. Times are BIGINT Unix epoch ms, UTC.
 * Released: never edit; add `0008-…` instead.
 */
export const adminActions0007: SqlMigration = Object.freeze({
  name: '0007-admin-actions',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_admin_actions (
  id varchar(36) not null primary key,
  at bigint not null,
  actor varchar(160) not null,
  via varchar(16) not null,
  action varchar(40) not null,
  target varchar(400) not null,
  order_id varchar(64),
  dry_run integer not null,
  outcome varchar(16) not null,
  detail text
)`,
      'create index if not exists payonce_admin_actions_at_idx on payonce_admin_actions (at)',
      'create index if not exists payonce_admin_actions_order_idx on payonce_admin_actions (order_id)',
    ],
    mysql: [
      `create table if not exists payonce_admin_actions (
  id varchar(36) character set ascii collate ascii_bin not null primary key,
  at bigint not null,
  actor varchar(160) not null,
  via varchar(16) not null,
  action varchar(40) not null,
  target varchar(400) not null,
  order_id varchar(64) null,
  dry_run int not null,
  outcome varchar(16) not null,
  detail mediumtext null,
  index payonce_admin_actions_at_idx (at),
  index payonce_admin_actions_order_idx (order_id)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_admin_actions (
  id text not null primary key,
  at integer not null,
  actor text not null,
  via text not null,
  action text not null,
  target text not null,
  order_id text,
  dry_run integer not null,
  outcome text not null,
  detail text
)`,
      'create index if not exists payonce_admin_actions_at_idx on payonce_admin_actions (at)',
      'create index if not exists payonce_admin_actions_order_idx on payonce_admin_actions (order_id)',
    ],
  }),
});
