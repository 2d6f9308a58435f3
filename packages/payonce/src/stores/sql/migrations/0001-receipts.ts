import type { SqlMigration } from './sql-migration.js';

/**
 * The webhook receipts table of docs/design.md §3: primary key (provider, external_id) is the UNIQUE index the claim
 * relies on; (status, claimed_at) finds stuck claims; (finished_at) drives purge. Times are BIGINT Unix epoch
 * ms, UTC. Keys compare byte-exactly: varchar on PostgreSQL (deterministic collation), TEXT on SQLite (BINARY
 * collation), VARBINARY(640) on MySQL/MariaDB (160 code points × 4 UTF-8 bytes; utf8mb4_bin is PAD SPACE).
 * Response headers (JSON) and error text are unbounded TEXT; MEDIUMTEXT on MySQL, whose TEXT stops at 64 KB.
 * Released: never edit; add `0002-…` instead.
 */
export const receipts0001: SqlMigration = Object.freeze({
  name: '0001-receipts',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_receipts (
  provider varchar(160) not null,
  external_id varchar(160) not null,
  status varchar(10) not null,
  attempts integer not null,
  claimed_at bigint not null,
  finished_at bigint,
  created_at bigint not null,
  fingerprint text,
  response_status integer,
  response_headers text,
  response_body bytea,
  error text,
  constraint payonce_receipts_pkey primary key (provider, external_id),
  constraint payonce_receipts_status_check check (status in ('processing', 'completed', 'failed'))
)`,
      'create index if not exists payonce_receipts_status_claimed_at_idx on payonce_receipts (status, claimed_at)',
      'create index if not exists payonce_receipts_finished_at_idx on payonce_receipts (finished_at)',
    ],
    mysql: [
      `create table if not exists payonce_receipts (
  provider varbinary(640) not null,
  external_id varbinary(640) not null,
  status varchar(10) character set ascii collate ascii_bin not null,
  attempts int not null,
  claimed_at bigint not null,
  finished_at bigint null,
  created_at bigint not null,
  fingerprint text character set utf8mb4 collate utf8mb4_bin null,
  response_status int null,
  response_headers mediumtext character set utf8mb4 collate utf8mb4_bin null,
  response_body longblob null,
  error mediumtext character set utf8mb4 collate utf8mb4_bin null,
  primary key (provider, external_id),
  index payonce_receipts_status_claimed_at_idx (status, claimed_at),
  index payonce_receipts_finished_at_idx (finished_at),
  constraint payonce_receipts_status_check check (status in ('processing', 'completed', 'failed'))
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_receipts (
  provider text not null,
  external_id text not null,
  status text not null check (status in ('processing', 'completed', 'failed')),
  attempts integer not null,
  claimed_at integer not null,
  finished_at integer,
  created_at integer not null,
  fingerprint text,
  response_status integer,
  response_headers text,
  response_body blob,
  error text,
  primary key (provider, external_id)
)`,
      'create index if not exists payonce_receipts_status_claimed_at_idx on payonce_receipts (status, claimed_at)',
      'create index if not exists payonce_receipts_finished_at_idx on payonce_receipts (finished_at)',
    ],
  }),
});
