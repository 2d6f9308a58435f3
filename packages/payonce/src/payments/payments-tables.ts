import type { ColumnType } from 'kysely';

/** A BIGINT/INT column: written as a number, read as the driver returns it (pg: string; sqlite: number/bigint). */
type IntColumn = ColumnType<number | string | bigint, number, number>;
type NullableIntColumn = ColumnType<number | string | bigint | null, number | null, number | null>;

/** One row of `payonce_orders` (migration `0002-payments`). Money in minor units; times epoch ms UTC. */
export interface OrdersTable {
  id: string;
  principal: string;
  status: string;
  amount_minor: IntColumn;
  currency: string;
  paid_attempt_id: string | null;
  created_at: IntColumn;
  updated_at: IntColumn;
}

/** One row of `payonce_payment_attempts`. `active_order_id` (MySQL only) is generated and never written. */
export interface PaymentAttemptsTable {
  id: string;
  order_id: string;
  provider: string;
  status: string;
  amount_minor: IntColumn;
  currency: string;
  idempotency_key: string;
  provider_payment_id: string | null;
  action_url: string | null;
  last_error: string | null;
  created_at: IntColumn;
  updated_at: IntColumn;
}

/** One row of `payonce_payment_events`: the journal; `decision = 'parked'` rows are the inbox. */
export interface PaymentEventsTable {
  provider: string;
  event_id: string;
  event_type: string;
  status: string;
  provider_payment_id: string | null;
  merchant_reference: string | null;
  order_ref: string | null;
  amount_minor: NullableIntColumn;
  currency: string | null;
  occurred_at: NullableIntColumn;
  received_at: IntColumn;
  decision: string;
  reason: string | null;
  attempt_id: string | null;
  order_id: string | null;
  resolved_at: NullableIntColumn;
}

/**
 * One row of `payonce_payment_refunds` (migration `0010-payment-refunds`): the cumulative refunded amount, integer
 * minor units, that the `refunded` event journaled as `(provider, event_id)` reported.
 */
export interface PaymentRefundsTable {
  provider: string;
  event_id: string;
  refunded_minor: IntColumn;
}

/** Name of the orders table (migration `0002-payments`). */
export const ORDERS_TABLE = 'payonce_orders';
/**
 * One row of `payonce_payment_attempt_trace` (migration `0017-payment-attempt-trace`): the W3C trace context
 * (`traceparent`, `tracestate` as JSON) of the checkout that created an attempt, when an OpenTelemetry SDK recorded it.
 */
export interface PaymentAttemptTraceTable {
  attempt_id: string;
  trace_context: string;
}
/** Name of the attempt trace table (migration `0017-payment-attempt-trace`). */
export const ATTEMPT_TRACE_TABLE = 'payonce_payment_attempt_trace';
/** Name of the payment attempts table (migration `0002-payments`). */
export const ATTEMPTS_TABLE = 'payonce_payment_attempts';
/** Name of the payment event journal (and inbox) table (migration `0002-payments`). */
export const PAYMENT_EVENTS_TABLE = 'payonce_payment_events';

/** Name of the refunded amounts of `refunded` events (migration `0010-payment-refunds`). */
export const PAYMENT_REFUNDS_TABLE = 'payonce_payment_refunds';

/** The Kysely database type of the payments tables; add it to your own database type to query them. */
export interface PaymentsDatabase {
  payonce_orders: OrdersTable;
  payonce_payment_attempts: PaymentAttemptsTable;
  payonce_payment_events: PaymentEventsTable;
  payonce_payment_refunds: PaymentRefundsTable;
  payonce_payment_attempt_trace: PaymentAttemptTraceTable;
}
