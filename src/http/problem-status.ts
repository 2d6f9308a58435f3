import type { PayonceErrorCode } from '../core/errors.js';
import type { PaymentErrorCode } from '../payments/payment-error.js';
import type { ServiceErrorCode } from '../service/service-error.js';
import type { WebhookEdgeCode } from '../webhooks/intake-problem.js';
import type { WebhookErrorCode } from '../webhooks/verify/webhook-error.js';

/**
 * Codes of the errors that only exist at the HTTP edge (no core error class): a required `Idempotency-Key`
 * header is absent, or its value is malformed. Stable across versions, like `PayonceErrorCode`.
 */
export type HttpErrorCode = 'IDEMPOTENCY_KEY_MISSING' | 'IDEMPOTENCY_KEY_INVALID';

/** Every code an HTTP problem response of payonce can carry: the core's, the webhook and payments layers' and the HTTP-only ones. */
export type ProblemCode =
  | PayonceErrorCode
  | WebhookErrorCode
  | WebhookEdgeCode
  | PaymentErrorCode
  | HttpErrorCode
  | ServiceErrorCode;

/**
 * The one table from error code to HTTP status. A code added to `PayonceErrorCode` is a compile error here
 * until it has a status, and the test in `test/http/` fails until it is documented in `docs/errors.md`.
 * - `INVALID_REQUEST_KEY`, `IDEMPOTENCY_KEY_MISSING`, `IDEMPOTENCY_KEY_INVALID` → 400 (draft §2.7: missing key).
 * - `REQUEST_IN_PROGRESS` → 409 with `Retry-After` (draft §2.7: concurrent request); `CLAIM_LOST` → 409.
 * - `PAYLOAD_MISMATCH` → 422 (draft §2.7: key reused with a different payload).
 * - `STORE_UNAVAILABLE` → 503; `INVALID_OPTION` and `TRANSACTIONS_UNSUPPORTED` → 500 (server misconfiguration);
 *   `RECEIPT_CORRUPTED` → 500 (a stored receipt altered outside payonce).
 * - webhooks: `MALFORMED_WEBHOOK_PAYLOAD` → 400; `RAW_BODY_REQUIRED`, `INVALID_VERIFY_INPUT` → 500 (integration bug).
 * - webhook edge: `WEBHOOK_BODY_TOO_LARGE` → 413; `WEBHOOK_SIGNATURE_MALFORMED` → 400; `WEBHOOK_SIGNATURE_INVALID` →
 *   401; `WEBHOOK_HANDLER_FAILED` → 500 (so the provider redelivers).
 * - payments: `ORDER_NOT_FOUND` → 404; `ORDER_NOT_PAYABLE` → 409; `INVALID_MONEY`, `INVALID_PAYMENT_EVENT` → 400;
 *   `PROVIDER_DECLINED` → 402 (the provider definitively refused the payment).
 * - reference service: `CUSTOMER_ID_MISSING`, `ADMIN_TOKEN_INVALID` → 401; `INVALID_REQUEST_BODY`,
 *   `CUSTOMER_ID_INVALID`, `MALFORMED_REQUEST` → 400; `JOB_NOT_FOUND`, `ROUTE_NOT_FOUND` → 404; `JOB_NOT_FINISHED`
 *   → 409; `REQUEST_TIMEOUT` → 408; `REQUEST_BODY_TOO_LARGE` → 413; `UNSUPPORTED_MEDIA_TYPE` → 415;
 *   `REQUEST_HEADERS_TOO_LARGE` → 431 (RFC 9110 §15.5, RFC 6585 §5).
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2.7 "Error Handling"; STYLE pattern 5.
 */
export const STATUS_BY_CODE = {
  INVALID_REQUEST_KEY: 400,
  IDEMPOTENCY_KEY_MISSING: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  INVALID_OPTION: 500,
  REQUEST_IN_PROGRESS: 409,
  CLAIM_LOST: 409,
  PAYLOAD_MISMATCH: 422,
  STORE_UNAVAILABLE: 503,
  TRANSACTIONS_UNSUPPORTED: 500,
  RECEIPT_CORRUPTED: 500,
  MALFORMED_WEBHOOK_PAYLOAD: 400,
  RAW_BODY_REQUIRED: 500,
  INVALID_VERIFY_INPUT: 500,
  ORDER_NOT_FOUND: 404,
  ORDER_NOT_PAYABLE: 409,
  INVALID_MONEY: 400,
  INVALID_PAYMENT_EVENT: 400,
  PROVIDER_DECLINED: 402,
  WEBHOOK_BODY_TOO_LARGE: 413,
  WEBHOOK_SIGNATURE_MALFORMED: 400,
  WEBHOOK_SIGNATURE_INVALID: 401,
  WEBHOOK_HANDLER_FAILED: 500,
  CUSTOMER_ID_MISSING: 401,
  CUSTOMER_ID_INVALID: 400,
  ROUTE_NOT_FOUND: 404,
  MALFORMED_REQUEST: 400,
  REQUEST_BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  REQUEST_HEADERS_TOO_LARGE: 431,
  INVALID_REQUEST_BODY: 400,
  ADMIN_TOKEN_INVALID: 401,
  JOB_NOT_FOUND: 404,
  JOB_NOT_FINISHED: 409,
} as const satisfies Record<ProblemCode, number>;

/** Short human-readable summary per code: the RFC 9457 `title`, constant for a given `type`. */
export const TITLE_BY_CODE = {
  INVALID_REQUEST_KEY: 'Invalid request key',
  IDEMPOTENCY_KEY_MISSING: 'Idempotency-Key is missing',
  IDEMPOTENCY_KEY_INVALID: 'Idempotency-Key is malformed',
  INVALID_OPTION: 'Server misconfiguration',
  REQUEST_IN_PROGRESS: 'A request with this Idempotency-Key is still being processed',
  CLAIM_LOST: 'The request lost its claim on the Idempotency-Key',
  PAYLOAD_MISMATCH: 'Idempotency-Key reused with a different request',
  STORE_UNAVAILABLE: 'Idempotency store unavailable',
  TRANSACTIONS_UNSUPPORTED: 'Server misconfiguration',
  RECEIPT_CORRUPTED: 'Stored receipt is corrupted',
  MALFORMED_WEBHOOK_PAYLOAD: 'Malformed webhook payload',
  RAW_BODY_REQUIRED: 'Server misconfiguration',
  INVALID_VERIFY_INPUT: 'Server misconfiguration',
  ORDER_NOT_FOUND: 'Order not found',
  ORDER_NOT_PAYABLE: 'Order cannot be paid in its current state',
  INVALID_MONEY: 'Invalid amount or currency',
  INVALID_PAYMENT_EVENT: 'Invalid payment event',
  PROVIDER_DECLINED: 'Payment declined by the provider',
  WEBHOOK_BODY_TOO_LARGE: 'Webhook body too large',
  WEBHOOK_SIGNATURE_MALFORMED: 'Webhook signature is malformed',
  WEBHOOK_SIGNATURE_INVALID: 'Webhook signature is invalid',
  WEBHOOK_HANDLER_FAILED: 'Webhook handler failed',
  CUSTOMER_ID_MISSING: 'X-Customer-Id is missing',
  CUSTOMER_ID_INVALID: 'X-Customer-Id is malformed',
  ROUTE_NOT_FOUND: 'No such route',
  MALFORMED_REQUEST: 'Malformed HTTP request',
  REQUEST_BODY_TOO_LARGE: 'Request body too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  REQUEST_TIMEOUT: 'Request timeout',
  REQUEST_HEADERS_TOO_LARGE: 'Request headers too large',
  INVALID_REQUEST_BODY: 'Invalid request body',
  ADMIN_TOKEN_INVALID: 'Admin token missing or wrong',
  JOB_NOT_FOUND: 'Outbox job not found',
  JOB_NOT_FINISHED: 'Outbox job is not finished',
} as const satisfies Record<ProblemCode, string>;

/** True when `code` has a row in `STATUS_BY_CODE` (an error from a newer module may not). */
export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(STATUS_BY_CODE, code);
}

/** Base of every problem `type` URI; the code follows in kebab case, e.g. `…/errors/payload-mismatch`. */
export const PROBLEM_TYPE_BASE = 'https://payonce.dev/errors/';

/**
 * The stable RFC 9457 `type` URI of a code: `https://payonce.dev/errors/` + the code in lower kebab case.
 * Documented per code in `docs/errors.md`. @example problemType('PAYLOAD_MISMATCH') // '…/errors/payload-mismatch'
 */
export function problemType(code: ProblemCode): string {
  return `${PROBLEM_TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`;
}
