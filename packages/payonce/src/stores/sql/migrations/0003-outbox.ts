import type { SqlMigration } from './sql-migration.js';

const JOB_STATUSES = `'queued', 'running', 'done', 'dead'`;

/**
 * The transactional outbox and the effect ledger of docs/design.md §7 (used by `src/outbox`; the store itself never reads
 * them). UNIQUE(topic, dedupe_key) makes `enqueueOnce` idempotent; (status, available_at) and
 * (status, lease_expires_at) find claimable jobs; a `dead` row is the dead letter, kept with its last error.
 * `payonce_effects` holds one row per effect key, written in the transaction of the effect itself. Times are
 * BIGINT Unix epoch ms, UTC. Released: never edit; add `0004-…` instead.
 */
export const outbox0003: SqlMigration = Object.freeze({
  name: '0003-outbox',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_outbox (
  id varchar(36) not null primary key,
  topic varchar(100) not null,
  dedupe_key varchar(200) not null,
  payload text not null,
  status varchar(10) not null check (status in (${JOB_STATUSES})),
  attempts integer not null,
  available_at bigint not null,
  lease_owner varchar(100),
  lease_expires_at bigint,
  last_error text,
  created_at bigint not null,
  finished_at bigint,
  constraint payonce_outbox_dedupe unique (topic, dedupe_key)
)`,
      'create index if not exists payonce_outbox_status_available_idx on payonce_outbox (status, available_at)',
      'create index if not exists payonce_outbox_status_lease_idx on payonce_outbox (status, lease_expires_at)',
      `create table if not exists payonce_effects (
  effect_key varchar(200) not null primary key,
  job_id varchar(36),
  created_at bigint not null
)`,
    ],
    mysql: [
      `create table if not exists payonce_outbox (
  id varchar(36) character set ascii collate ascii_bin not null primary key,
  topic varchar(100) not null,
  dedupe_key varchar(200) not null,
  payload mediumtext not null,
  status varchar(10) character set ascii collate ascii_bin not null,
  attempts int not null,
  available_at bigint not null,
  lease_owner varchar(100) null,
  lease_expires_at bigint null,
  last_error text null,
  created_at bigint not null,
  finished_at bigint null,
  unique key payonce_outbox_dedupe (topic, dedupe_key),
  index payonce_outbox_status_available_idx (status, available_at),
  index payonce_outbox_status_lease_idx (status, lease_expires_at),
  constraint payonce_outbox_status_check check (status in (${JOB_STATUSES}))
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
      `create table if not exists payonce_effects (
  effect_key varchar(200) not null primary key,
  job_id varchar(36) character set ascii collate ascii_bin null,
  created_at bigint not null
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_outbox (
  id text not null primary key,
  topic text not null,
  dedupe_key text not null,
  payload text not null,
  status text not null check (status in (${JOB_STATUSES})),
  attempts integer not null,
  available_at integer not null,
  lease_owner text,
  lease_expires_at integer,
  last_error text,
  created_at integer not null,
  finished_at integer,
  unique (topic, dedupe_key)
)`,
      'create index if not exists payonce_outbox_status_available_idx on payonce_outbox (status, available_at)',
      'create index if not exists payonce_outbox_status_lease_idx on payonce_outbox (status, lease_expires_at)',
      `create table if not exists payonce_effects (
  effect_key text not null primary key,
  job_id text,
  created_at integer not null
)`,
    ],
  }),
});
