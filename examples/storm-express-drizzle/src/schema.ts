import { integer, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * The shop's orders. `status`: `new` (created), `awaiting_payment` (a Stripe payment attempt is open), `reserved`
 * (a Payme transaction holds it, `provider = 'payme'`), `paid` (the provider's success applied), `fulfilled` (the
 * fulfilment worker shipped it), `refunded` (Payme gave the money back). Money in integer minor units.
 */
export const orders = pgTable('orders', {
  id: text('id').primaryKey(),
  customer: text('customer').notNull(),
  amountMinor: integer('amount_minor').notNull(),
  /** ISO-4217, upper case. */
  currency: text('currency').notNull(),
  status: text('status').notNull(),
  /** Who holds or paid the order when it is not Stripe (`payme`), else null. */
  provider: text('provider'),
});

/**
 * One payment attempt per PaymentIntent the shop asked the provider for. `status`: `creating` (before the call),
 * `pending` / `requires_action` / `succeeded` / `failed` (the provider's answer or event), `unknown` (the call's
 * answer was lost: the payment may exist, so the attempt stays open and is never `failed`).
 */
export const paymentAttempts = pgTable('payment_attempts', {
  id: text('id').primaryKey(),
  orderId: text('order_id').notNull(),
  status: text('status').notNull(),
  providerPaymentId: text('provider_payment_id'),
  amountMinor: integer('amount_minor').notNull(),
  currency: text('currency').notNull(),
});

/** The order's history: one `paid` row each time the order moved to paid, one `refunded` row per refund (the storm counts them). */
export const orderEvents = pgTable('order_events', {
  id: text('id').primaryKey(),
  orderId: text('order_id').notNull(),
  kind: text('kind').notNull(),
  eventId: text('event_id'),
});

/** One row per shipment: what the fulfilment worker did. */
export const fulfilments = pgTable('fulfilments', {
  id: text('id').primaryKey(),
  orderId: text('order_id').notNull(),
  jobId: text('job_id').notNull(),
});

/** The tables above as SQL (what `drizzle-kit generate` would write), created at start if missing. */
export const SHOP_TABLES_SQL = `
create table if not exists orders (
  id text primary key, customer text not null, amount_minor integer not null, currency text not null,
  status text not null, provider text);
create table if not exists payment_attempts (
  id text primary key, order_id text not null references orders (id), status text not null,
  provider_payment_id text, amount_minor integer not null, currency text not null);
create index if not exists payment_attempts_order on payment_attempts (order_id);
create table if not exists order_events (
  id text primary key, order_id text not null references orders (id), kind text not null, event_id text);
create index if not exists order_events_order on order_events (order_id);
create table if not exists fulfilments (
  id text primary key, order_id text not null references orders (id), job_id text not null);
create index if not exists fulfilments_order on fulfilments (order_id);
`;
