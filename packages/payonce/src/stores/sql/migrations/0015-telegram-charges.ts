import type { SqlMigration } from './sql-migration.js';

/**
 * The Telegram Payments engine's table (`payonce/telegram`, group `telegram`): `payonce_telegram_charges`, one row
 * per `telegram_payment_charge_id` the engine received, whatever it decided: the payer (`user_id`, the `user_id`
 * `refundStarPayment` needs; NULL when the message named none), the `invoice_payload` when it can be an order id
 * (`order_ref`), the amount in the currency's smallest units and the currency as Telegram sent them, the engine's
 * first decision (`applied`, `unchanged`, `rejected`, `parked`, `declined`), when it was received and, for a refund
 * of a charge that paid no order (`requestStrayStarRefund`), when `refundStarPayment` confirmed it (epoch ms).
 * @see https://core.telegram.org/bots/api#successfulpayment, #refundstarpayment. Released: never edit.
 */
export const telegramCharges0015: SqlMigration = Object.freeze({
  name: '0015-telegram-charges',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_telegram_charges (
  charge_id varchar(160) not null primary key,
  user_id bigint,
  order_ref varchar(64),
  amount_minor bigint,
  currency varchar(3),
  decision varchar(16) not null,
  received_at bigint not null,
  stray_refunded_at bigint
)`,
      'create index if not exists payonce_telegram_charges_order_idx on payonce_telegram_charges (order_ref)',
    ],
    mysql: [
      `create table if not exists payonce_telegram_charges (
  charge_id varchar(160) character set ascii collate ascii_bin not null primary key,
  user_id bigint null,
  order_ref varchar(64) character set ascii collate ascii_bin null,
  amount_minor bigint null,
  currency varchar(3) character set ascii collate ascii_bin null,
  decision varchar(16) character set ascii collate ascii_bin not null,
  received_at bigint not null,
  stray_refunded_at bigint null,
  index payonce_telegram_charges_order_idx (order_ref)
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_telegram_charges (
  charge_id text not null primary key,
  user_id integer,
  order_ref text,
  amount_minor integer,
  currency text,
  decision text not null,
  received_at integer not null,
  stray_refunded_at integer
)`,
      'create index if not exists payonce_telegram_charges_order_idx on payonce_telegram_charges (order_ref)',
    ],
  }),
});
