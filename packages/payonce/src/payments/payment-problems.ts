import type { ProblemCatalogue } from '../problem/problem-details.js';
import type { PaymentErrorCode } from './payment-error.js';

/**
 * The payments' problem table, for an HTTP API that exposes orders and payments (the reference service does):
 * `ORDER_NOT_FOUND` → 404; `ORDER_NOT_PAYABLE`, `ORDER_ID_TAKEN` → 409; `INVALID_MONEY`, `INVALID_PAYMENT_EVENT` → 400;
 * `PROVIDER_DECLINED` → 402 (the provider definitively refused the payment).
 * @see docs/errors.md; RFC 9110 §15.5.3 (402).
 */
export const PAYMENT_PROBLEMS = Object.freeze({
  ORDER_NOT_FOUND: { status: 404, title: 'Order not found' },
  ORDER_NOT_PAYABLE: { status: 409, title: 'Order cannot be paid in its current state' },
  ORDER_ID_TAKEN: { status: 409, title: 'Order id taken by another order' },
  INVALID_MONEY: { status: 400, title: 'Invalid amount or currency' },
  INVALID_PAYMENT_EVENT: { status: 400, title: 'Invalid payment event' },
  PROVIDER_DECLINED: { status: 402, title: 'Payment declined by the provider' },
}) satisfies ProblemCatalogue<PaymentErrorCode>;
