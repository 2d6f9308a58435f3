import type { SqlMigration } from './sql-migration.js';

const STATES = '1, 2, -1, -2';
const LIVE = '1, 2';

/**
 * The Payme Merchant API engine's tables (`payonce/payme`, group `payme`):
 * - `payonce_payme_transactions`: one row per Payme transaction id (`payme_id`, the 24-character `params.id`),
 *   with the merchant's own transaction id, the order it pays and the `account` object Payme sent, the amount in
 *   tiyin, the state (1 created, 2 performed, -1 cancelled, -2 cancelled after perform), the cancel reason, Payme's
 *   creation `time` and the merchant's `create_time`, `perform_time`, `cancel_time` (13-digit epoch ms, as Payme
 *   defines them; NULL where the protocol answers 0), and the fiscal data of the PERFORM and CANCEL receipts.
 *   At most ONE live transaction (state 1 or 2) per order is enforced by the database: a partial unique index on
 *   PostgreSQL and SQLite, a stored generated column (`order_id` while live, else NULL) with a unique index on
 *   MySQL/MariaDB.
 * - `payonce_payme_keys`: the cashbox key per cashbox name, read on every call so `ChangePassword` takes effect
 *   on every replica.
 * @see fixtures payme/states-and-reasons.json, payme/idempotency-rules.json ("another transaction … is active (1) or
 *   completed (2) for the same order"); https://developer.help.paycom.uz/metody-merchant-api/createtransaction.
 * Released: never edit.
 */
export const payme0011: SqlMigration = Object.freeze({
  name: '0011-payme',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_payme_transactions (
  payme_id varchar(64) not null primary key,
  transaction_id varchar(64) not null unique,
  order_id varchar(64) not null,
  account text not null,
  amount_tiyin bigint not null check (amount_tiyin > 0),
  state smallint not null check (state in (${STATES})),
  reason integer,
  payme_time bigint not null,
  create_time bigint not null,
  perform_time bigint,
  cancel_time bigint,
  fiscal_perform text,
  fiscal_cancel text
)`,
      `create unique index if not exists payonce_payme_transactions_one_live on payonce_payme_transactions (order_id) where state in (${LIVE})`,
      'create index if not exists payonce_payme_transactions_time_idx on payonce_payme_transactions (payme_time)',
      'create index if not exists payonce_payme_transactions_order_idx on payonce_payme_transactions (order_id)',
      `create table if not exists payonce_payme_keys (
  cashbox varchar(64) not null primary key,
  merchant_key varchar(200) not null,
  updated_at bigint not null
)`,
    ],
    mysql: [
      `create table if not exists payonce_payme_transactions (
  payme_id varchar(64) character set ascii collate ascii_bin not null primary key,
  transaction_id varchar(64) character set ascii collate ascii_bin not null,
  order_id varchar(64) character set ascii collate ascii_bin not null,
  account text not null,
  amount_tiyin bigint not null,
  state smallint not null,
  reason integer null,
  payme_time bigint not null,
  create_time bigint not null,
  perform_time bigint null,
  cancel_time bigint null,
  fiscal_perform text null,
  fiscal_cancel text null,
  live_order_id varchar(64) character set ascii collate ascii_bin
    generated always as (case when state in (${LIVE}) then order_id else null end) stored,
  unique key payonce_payme_transactions_transaction (transaction_id),
  unique key payonce_payme_transactions_one_live (live_order_id),
  index payonce_payme_transactions_time_idx (payme_time),
  index payonce_payme_transactions_order_idx (order_id),
  constraint payonce_payme_transactions_state_check check (state in (${STATES})),
  constraint payonce_payme_transactions_amount_check check (amount_tiyin > 0)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
      `create table if not exists payonce_payme_keys (
  cashbox varchar(64) character set ascii collate ascii_bin not null primary key,
  merchant_key varchar(200) not null,
  updated_at bigint not null
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_payme_transactions (
  payme_id text not null primary key,
  transaction_id text not null unique,
  order_id text not null,
  account text not null,
  amount_tiyin integer not null check (amount_tiyin > 0),
  state integer not null check (state in (${STATES})),
  reason integer,
  payme_time integer not null,
  create_time integer not null,
  perform_time integer,
  cancel_time integer,
  fiscal_perform text,
  fiscal_cancel text
)`,
      `create unique index if not exists payonce_payme_transactions_one_live on payonce_payme_transactions (order_id) where state in (${LIVE})`,
      'create index if not exists payonce_payme_transactions_time_idx on payonce_payme_transactions (payme_time)',
      'create index if not exists payonce_payme_transactions_order_idx on payonce_payme_transactions (order_id)',
      `create table if not exists payonce_payme_keys (
  cashbox text not null primary key,
  merchant_key text not null,
  updated_at integer not null
)`,
    ],
  }),
});
