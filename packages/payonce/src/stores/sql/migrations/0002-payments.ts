import type { SqlMigration } from './sql-migration.js';

const ACTIVE = `'creating', 'pending', 'requires_action', 'unknown'`;
const ORDER_STATUSES = `'draft', 'awaiting_payment', 'paid', 'fulfilling', 'completed', 'cancelled', 'refunded'`;
const ATTEMPT_STATUSES = `'creating', 'pending', 'requires_action', 'succeeded', 'failed', 'cancelled', 'unknown'`;
const EVENT_STATUSES = `'unknown', 'pending', 'requires_action', 'succeeded', 'failed', 'cancelled', 'refunded', 'not_found'`;
const DECISIONS = `'applied', 'unchanged', 'rejected', 'parked'`;

/**
 * Orders, payment attempts and the payment event journal of docs/design.md §6 (used by `src/payments`; the store itself
 * never reads them). Money is BIGINT minor units plus a 3-letter ISO-4217 code; times are BIGINT Unix epoch ms,
 * UTC, as in `payonce_receipts`. At most one active attempt (`creating`, `pending`, `requires_action`,
 * `unknown`) per order is enforced by the database: a partial unique index on PostgreSQL and SQLite, a stored
 * generated column (`order_id` while active, else NULL) with a unique index on MySQL/MariaDB. The journal keeps
 * one row per provider event (primary key = the receipt key) with the decision taken; rows `parked` are the
 * inbox of events that arrived before their attempt could be found. Released: never edit; add `0004-…` instead.
 */
export const payments0002: SqlMigration = Object.freeze({
  name: '0002-payments',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_orders (
  id varchar(64) not null primary key,
  principal varchar(160) not null,
  status varchar(20) not null check (status in (${ORDER_STATUSES})),
  amount_minor bigint not null check (amount_minor > 0),
  currency char(3) not null,
  paid_attempt_id varchar(64),
  created_at bigint not null,
  updated_at bigint not null
)`,
      `create table if not exists payonce_payment_attempts (
  id varchar(64) not null primary key,
  order_id varchar(64) not null references payonce_orders (id),
  provider varchar(64) not null,
  status varchar(20) not null check (status in (${ATTEMPT_STATUSES})),
  amount_minor bigint not null check (amount_minor > 0),
  currency char(3) not null,
  idempotency_key varchar(100) not null unique,
  provider_payment_id varchar(200),
  action_url text,
  last_error text,
  created_at bigint not null,
  updated_at bigint not null
)`,
      `create unique index if not exists payonce_payment_attempts_one_active on payonce_payment_attempts (order_id) where status in (${ACTIVE})`,
      'create unique index if not exists payonce_payment_attempts_provider_payment on payonce_payment_attempts (provider, provider_payment_id)',
      'create index if not exists payonce_payment_attempts_order_idx on payonce_payment_attempts (order_id)',
      'create index if not exists payonce_payment_attempts_status_updated_idx on payonce_payment_attempts (status, updated_at)',
      `create table if not exists payonce_payment_events (
  provider varchar(160) not null,
  event_id varchar(160) not null,
  event_type varchar(160) not null,
  status varchar(20) not null check (status in (${EVENT_STATUSES})),
  provider_payment_id varchar(200),
  merchant_reference varchar(200),
  order_ref varchar(200),
  amount_minor bigint,
  currency varchar(3),
  occurred_at bigint,
  received_at bigint not null,
  decision varchar(10) not null check (decision in (${DECISIONS})),
  reason text,
  attempt_id varchar(64),
  order_id varchar(64),
  resolved_at bigint,
  primary key (provider, event_id)
)`,
      'create index if not exists payonce_payment_events_parked_payment_idx on payonce_payment_events (decision, provider, provider_payment_id)',
      'create index if not exists payonce_payment_events_parked_reference_idx on payonce_payment_events (decision, merchant_reference)',
      'create index if not exists payonce_payment_events_order_idx on payonce_payment_events (order_id)',
    ],
    mysql: [
      `create table if not exists payonce_orders (
  id varchar(64) character set ascii collate ascii_bin not null primary key,
  principal varchar(160) not null,
  status varchar(20) character set ascii collate ascii_bin not null,
  amount_minor bigint not null,
  currency char(3) character set ascii collate ascii_bin not null,
  paid_attempt_id varchar(64) character set ascii collate ascii_bin null,
  created_at bigint not null,
  updated_at bigint not null,
  constraint payonce_orders_status_check check (status in (${ORDER_STATUSES})),
  constraint payonce_orders_amount_check check (amount_minor > 0)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
      `create table if not exists payonce_payment_attempts (
  id varchar(64) character set ascii collate ascii_bin not null primary key,
  order_id varchar(64) character set ascii collate ascii_bin not null,
  provider varchar(64) not null,
  status varchar(20) character set ascii collate ascii_bin not null,
  amount_minor bigint not null,
  currency char(3) character set ascii collate ascii_bin not null,
  idempotency_key varchar(100) character set ascii collate ascii_bin not null,
  provider_payment_id varchar(200) null,
  action_url text null,
  last_error text null,
  created_at bigint not null,
  updated_at bigint not null,
  active_order_id varchar(64) character set ascii collate ascii_bin
    generated always as (case when status in (${ACTIVE}) then order_id else null end) stored,
  unique key payonce_payment_attempts_one_active (active_order_id),
  unique key payonce_payment_attempts_idempotency_key (idempotency_key),
  unique key payonce_payment_attempts_provider_payment (provider, provider_payment_id),
  index payonce_payment_attempts_order_idx (order_id),
  index payonce_payment_attempts_status_updated_idx (status, updated_at),
  constraint payonce_payment_attempts_order_fk foreign key (order_id) references payonce_orders (id),
  constraint payonce_payment_attempts_status_check check (status in (${ATTEMPT_STATUSES})),
  constraint payonce_payment_attempts_amount_check check (amount_minor > 0)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
      `create table if not exists payonce_payment_events (
  provider varchar(160) not null,
  event_id varchar(160) not null,
  event_type varchar(160) not null,
  status varchar(20) character set ascii collate ascii_bin not null,
  provider_payment_id varchar(200) null,
  merchant_reference varchar(200) null,
  order_ref varchar(200) null,
  amount_minor bigint null,
  currency varchar(3) null,
  occurred_at bigint null,
  received_at bigint not null,
  decision varchar(10) character set ascii collate ascii_bin not null,
  reason text null,
  attempt_id varchar(64) character set ascii collate ascii_bin null,
  order_id varchar(64) character set ascii collate ascii_bin null,
  resolved_at bigint null,
  primary key (provider, event_id),
  index payonce_payment_events_parked_payment_idx (decision, provider, provider_payment_id),
  index payonce_payment_events_parked_reference_idx (decision, merchant_reference),
  index payonce_payment_events_order_idx (order_id),
  constraint payonce_payment_events_status_check check (status in (${EVENT_STATUSES})),
  constraint payonce_payment_events_decision_check check (decision in (${DECISIONS}))
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_orders (
  id text not null primary key,
  principal text not null,
  status text not null check (status in (${ORDER_STATUSES})),
  amount_minor integer not null check (amount_minor > 0),
  currency text not null,
  paid_attempt_id text,
  created_at integer not null,
  updated_at integer not null
)`,
      `create table if not exists payonce_payment_attempts (
  id text not null primary key,
  order_id text not null references payonce_orders (id),
  provider text not null,
  status text not null check (status in (${ATTEMPT_STATUSES})),
  amount_minor integer not null check (amount_minor > 0),
  currency text not null,
  idempotency_key text not null unique,
  provider_payment_id text,
  action_url text,
  last_error text,
  created_at integer not null,
  updated_at integer not null
)`,
      `create unique index if not exists payonce_payment_attempts_one_active on payonce_payment_attempts (order_id) where status in (${ACTIVE})`,
      'create unique index if not exists payonce_payment_attempts_provider_payment on payonce_payment_attempts (provider, provider_payment_id)',
      'create index if not exists payonce_payment_attempts_order_idx on payonce_payment_attempts (order_id)',
      'create index if not exists payonce_payment_attempts_status_updated_idx on payonce_payment_attempts (status, updated_at)',
      `create table if not exists payonce_payment_events (
  provider text not null,
  event_id text not null,
  event_type text not null,
  status text not null check (status in (${EVENT_STATUSES})),
  provider_payment_id text,
  merchant_reference text,
  order_ref text,
  amount_minor integer,
  currency text,
  occurred_at integer,
  received_at integer not null,
  decision text not null check (decision in (${DECISIONS})),
  reason text,
  attempt_id text,
  order_id text,
  resolved_at integer,
  primary key (provider, event_id)
)`,
      'create index if not exists payonce_payment_events_parked_payment_idx on payonce_payment_events (decision, provider, provider_payment_id)',
      'create index if not exists payonce_payment_events_parked_reference_idx on payonce_payment_events (decision, merchant_reference)',
      'create index if not exists payonce_payment_events_order_idx on payonce_payment_events (order_id)',
    ],
  }),
});
