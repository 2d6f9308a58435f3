import type { SqlMigration } from './sql-migration.js';

const DECISIONS = `'new', 'duplicate', 'in-progress', 'rejected'`;
const OUTCOMES = `'completed', 'declined', 'replayed', 'deferred', 'failed', 'rejected'`;

/**
 * The webhook delivery journal of docs/design.md §5 (written by `src/webhooks/journal`; the receipt store never reads it):
 * one row per delivery with its signature result, decision, outcome, duration and redacted payload. Indexes
 * answer "all deliveries for payment X" by object id, provider payment id or merchant reference, and drive the
 * retention purge by `received_at`. Times are BIGINT Unix epoch ms, UTC. Released: never edit; add `0005-…`.
 */
export const webhookDeliveries0004: SqlMigration = Object.freeze({
  name: '0004-webhook-deliveries',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_webhook_deliveries (
  id varchar(36) not null primary key,
  received_at bigint not null,
  provider varchar(160) not null,
  event_key varchar(160),
  event_type varchar(160),
  signature varchar(40) not null,
  decision varchar(12) not null check (decision in (${DECISIONS})),
  outcome varchar(12) not null check (outcome in (${OUTCOMES})),
  response_status integer not null,
  error text,
  duration_ms integer not null,
  object_id varchar(200),
  payment_id varchar(200),
  merchant_reference varchar(200),
  amount_minor bigint,
  currency varchar(3),
  payload text
)`,
      'create index if not exists payonce_webhook_deliveries_received_at_idx on payonce_webhook_deliveries (received_at)',
      'create index if not exists payonce_webhook_deliveries_object_idx on payonce_webhook_deliveries (object_id)',
      'create index if not exists payonce_webhook_deliveries_payment_idx on payonce_webhook_deliveries (payment_id)',
      'create index if not exists payonce_webhook_deliveries_reference_idx on payonce_webhook_deliveries (merchant_reference)',
      'create index if not exists payonce_webhook_deliveries_key_idx on payonce_webhook_deliveries (provider, event_key)',
    ],
    mysql: [
      `create table if not exists payonce_webhook_deliveries (
  id varchar(36) character set ascii collate ascii_bin not null primary key,
  received_at bigint not null,
  provider varchar(160) not null,
  event_key varchar(160) null,
  event_type varchar(160) null,
  signature varchar(40) character set ascii collate ascii_bin not null,
  decision varchar(12) character set ascii collate ascii_bin not null,
  outcome varchar(12) character set ascii collate ascii_bin not null,
  response_status int not null,
  error text null,
  duration_ms int not null,
  object_id varchar(200) null,
  payment_id varchar(200) null,
  merchant_reference varchar(200) null,
  amount_minor bigint null,
  currency varchar(3) null,
  payload mediumtext null,
  index payonce_webhook_deliveries_received_at_idx (received_at),
  index payonce_webhook_deliveries_object_idx (object_id),
  index payonce_webhook_deliveries_payment_idx (payment_id),
  index payonce_webhook_deliveries_reference_idx (merchant_reference),
  index payonce_webhook_deliveries_key_idx (provider, event_key),
  constraint payonce_webhook_deliveries_decision_check check (decision in (${DECISIONS})),
  constraint payonce_webhook_deliveries_outcome_check check (outcome in (${OUTCOMES}))
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_webhook_deliveries (
  id text not null primary key,
  received_at integer not null,
  provider text not null,
  event_key text,
  event_type text,
  signature text not null,
  decision text not null check (decision in (${DECISIONS})),
  outcome text not null check (outcome in (${OUTCOMES})),
  response_status integer not null,
  error text,
  duration_ms integer not null,
  object_id text,
  payment_id text,
  merchant_reference text,
  amount_minor integer,
  currency text,
  payload text
)`,
      'create index if not exists payonce_webhook_deliveries_received_at_idx on payonce_webhook_deliveries (received_at)',
      'create index if not exists payonce_webhook_deliveries_object_idx on payonce_webhook_deliveries (object_id)',
      'create index if not exists payonce_webhook_deliveries_payment_idx on payonce_webhook_deliveries (payment_id)',
      'create index if not exists payonce_webhook_deliveries_reference_idx on payonce_webhook_deliveries (merchant_reference)',
      'create index if not exists payonce_webhook_deliveries_key_idx on payonce_webhook_deliveries (provider, event_key)',
    ],
  }),
});
