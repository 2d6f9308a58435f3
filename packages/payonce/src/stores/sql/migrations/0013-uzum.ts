import type { SqlMigration } from './sql-migration.js';

const STATUSES = "'CREATED', 'CONFIRMED', 'REVERSED'";
const LIVE = "'CREATED', 'CONFIRMED'";

/**
 * The Uzum Bank Merchant API engine's table (`payonce/uzum`, group `uzum`):
 * `payonce_uzum_transactions`, one row per Uzum `transId`, with the order it pays and the `params` Uzum sent, the
 * amount in tiyin, the status (CREATED, CONFIRMED, REVERSED), the `data` answered, and `trans_time`,
 * `confirm_time`, `reverse_time` (epoch ms; NULL until set). At most ONE live (CREATED or CONFIRMED) transaction
 * per order is enforced by the database: a partial unique index on PostgreSQL and SQLite, a stored generated
 * column (`order_id` while live, else NULL) with a unique index on MySQL/MariaDB.
 * @see fixtures uzum/protocol.json ("endpoints", "transaction_statuses"); https://developer.uzumbank.uz/en/merchant/
 * Released: never edit.
 */
export const uzum0013: SqlMigration = Object.freeze({
  name: '0013-uzum',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_uzum_transactions (
  trans_id varchar(64) not null primary key,
  order_id varchar(64) not null,
  params text not null,
  amount_tiyin bigint not null check (amount_tiyin > 0),
  status varchar(16) not null check (status in (${STATUSES})),
  data text not null,
  trans_time bigint not null,
  confirm_time bigint,
  reverse_time bigint
)`,
      `create unique index if not exists payonce_uzum_transactions_one_live on payonce_uzum_transactions (order_id) where status in (${LIVE})`,
      'create index if not exists payonce_uzum_transactions_order_idx on payonce_uzum_transactions (order_id)',
    ],
    mysql: [
      `create table if not exists payonce_uzum_transactions (
  trans_id varchar(64) character set ascii collate ascii_bin not null primary key,
  order_id varchar(64) character set ascii collate ascii_bin not null,
  params text not null,
  amount_tiyin bigint not null,
  status varchar(16) character set ascii collate ascii_bin not null,
  data text not null,
  trans_time bigint not null,
  confirm_time bigint null,
  reverse_time bigint null,
  live_order_id varchar(64) character set ascii collate ascii_bin
    generated always as (case when status in (${LIVE}) then order_id else null end) stored,
  unique key payonce_uzum_transactions_one_live (live_order_id),
  index payonce_uzum_transactions_order_idx (order_id),
  constraint payonce_uzum_transactions_status_check check (status in (${STATUSES})),
  constraint payonce_uzum_transactions_amount_check check (amount_tiyin > 0)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_uzum_transactions (
  trans_id text not null primary key,
  order_id text not null,
  params text not null,
  amount_tiyin integer not null check (amount_tiyin > 0),
  status text not null check (status in (${STATUSES})),
  data text not null,
  trans_time integer not null,
  confirm_time integer,
  reverse_time integer
)`,
      `create unique index if not exists payonce_uzum_transactions_one_live on payonce_uzum_transactions (order_id) where status in (${LIVE})`,
      'create index if not exists payonce_uzum_transactions_order_idx on payonce_uzum_transactions (order_id)',
    ],
  }),
});
