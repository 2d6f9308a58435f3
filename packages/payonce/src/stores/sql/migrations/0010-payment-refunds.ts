import type { SqlMigration } from './sql-migration.js';

/**
 * The refunded amount a `refunded` payment event reports (issue #34 item 1): one row per journal row of such an
 * event, same key `(provider, event_id)` as `payonce_payment_events`, holding the provider's CUMULATIVE refunded
 * amount of the payment in integer minor units (Stripe's charge `amount_refunded`). `Payments` compares it with
 * the attempt's amount: below it a refund is partial (journaled, the order stays paid and is fulfilled), at it
 * the order is refunded. The attempt's refunded amount is the largest one of its applied events. A side table,
 * so the statements stay `if not exists` (SQLite has no `add column if not exists`). Released: never edit.
 */
export const paymentRefunds0010: SqlMigration = Object.freeze({
  name: '0010-payment-refunds',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_payment_refunds (
  provider varchar(160) not null,
  event_id varchar(160) not null,
  refunded_minor bigint not null check (refunded_minor >= 0),
  primary key (provider, event_id)
)`,
    ],
    mysql: [
      `create table if not exists payonce_payment_refunds (
  provider varchar(160) not null,
  event_id varchar(160) not null,
  refunded_minor bigint not null,
  primary key (provider, event_id),
  constraint payonce_payment_refunds_amount_check check (refunded_minor >= 0)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_payment_refunds (
  provider text not null,
  event_id text not null,
  refunded_minor integer not null check (refunded_minor >= 0),
  primary key (provider, event_id)
)`,
    ],
  }),
});
