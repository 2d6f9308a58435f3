/**
 * `payonce/payments`: orders and payment attempts with forward-only state machines, checkout with one active
 * attempt per order, provider events, reconciliation, and the `PaymentProvider` port. SQL stores only
 * (migrations `0002-payments`, `0003-outbox`). @see docs/design.md §6.
 */
export {
  FULFIL_TOPIC,
  MONEY_ON_CLOSED_ATTEMPT,
  PARTIAL_REFUND,
  REFUND_TOPIC,
  REFUNDED_PAST_CAPTURED,
} from './apply-report.js';
export {
  ACTIVE_ATTEMPT_STATUSES,
  ATTEMPT_STATUSES,
  type AttemptStatus,
  isActiveAttempt,
  isTerminalAttempt,
  nextAttemptStatus,
} from './attempt-status.js';
export {
  type CreateFault,
  FakeProviderTimeout,
  InMemoryPaymentProvider,
  type InMemoryPaymentProviderOptions,
} from './in-memory-payment-provider.js';
export { InvalidMoney } from './invalid-money.js';
export { InvalidPaymentEvent } from './invalid-payment-event.js';
export type { JournalEntry, PaymentDecision } from './journal-entry.js';
export { checkMoney, type Money } from './money.js';
export type { Order } from './order.js';
export { OrderIdTaken } from './order-id-taken.js';
export { OrderNotFound } from './order-not-found.js';
export { OrderNotPayable } from './order-not-payable.js';
export { nextOrderStatus, ORDER_STATUSES, type OrderStatus, PAID_ORDER_STATUSES } from './order-status.js';
export { ATTEMPT_KEY_PREFIX, type PaymentAttempt } from './payment-attempt.js';
export { PaymentError, type PaymentErrorCode } from './payment-error.js';
export { PAYMENT_PROBLEMS } from './payment-problems.js';
export type {
  CreatePaymentRequest,
  PaymentProvider,
  ProviderPayment,
  ProviderPaymentStatus,
} from './payment-provider.js';
export {
  type ApplyEventOptions,
  type AttemptReconciliation,
  type CheckoutResult,
  type CreateOrderOptions,
  type EventResult,
  type LockedOrder,
  PAYMENTS_RECEIPT_PREFIX,
  type PaymentAlert,
  Payments,
  type PaymentsOptions,
  type ProviderPaymentRef,
  type ReconcileAttemptsOptions,
  type ReconcileMode,
  type ReconcileOptions,
  type ReconcileReport,
} from './payments.js';
export {
  ATTEMPT_TRACE_TABLE,
  ATTEMPTS_TABLE,
  ORDERS_TABLE,
  PAYMENT_EVENTS_TABLE,
  PAYMENT_REFUNDS_TABLE,
  type PaymentAttemptTraceTable,
  type PaymentRefundsTable,
  type PaymentsDatabase,
} from './payments-tables.js';
export { ProviderDeclined } from './provider-declined.js';
export {
  PAYMENT_EVENT_STATUSES,
  type PaymentEventStatus,
  type ProviderPaymentEvent,
} from './provider-payment-event.js';
export type { Transition } from './transition.js';
