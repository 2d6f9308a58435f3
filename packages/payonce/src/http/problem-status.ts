import type { PayonceErrorCode } from '../core/errors.js';
import { hasProblem, type ProblemCatalogue, statusesOf, titlesOf } from '../problem/problem-details.js';

/**
 * Codes of the errors that only exist at the HTTP edge (no core error class): a required `Idempotency-Key`
 * header is absent, or its value is malformed, or the body is over the adapter's limit. Stable across versions,
 * like `PayonceErrorCode`.
 */
export type HttpErrorCode = 'IDEMPOTENCY_KEY_MISSING' | 'IDEMPOTENCY_KEY_INVALID' | 'REQUEST_BODY_TOO_LARGE';

/**
 * Every code an `Idempotency-Key` adapter (express, fastify, hono, `createIdempotencyCore`) answers: the core's
 * and the HTTP-only ones. The webhook intake, the payments and the reference service own their codes' tables
 * (`WEBHOOK_PROBLEMS`, `PAYMENT_PROBLEMS`, `SERVICE_PROBLEMS`).
 */
export type ProblemCode = PayonceErrorCode | HttpErrorCode;

/**
 * The HTTP layer's problem table: status and title of every `ProblemCode`, in the words of an `Idempotency-Key`
 * request. A code added to `PayonceErrorCode` is a compile error here until it has a row, and the test in
 * `test/http/` fails until it is documented in `docs/errors.md`.
 * - `INVALID_REQUEST_KEY`, `IDEMPOTENCY_KEY_MISSING`, `IDEMPOTENCY_KEY_INVALID` → 400 (draft §2.7: missing key).
 * - `REQUEST_IN_PROGRESS` → 409 with `Retry-After` (draft §2.7: concurrent request); `CLAIM_LOST` → 409.
 * - `PAYLOAD_MISMATCH` → 422 (draft §2.7: key reused with a different payload).
 * - `REQUEST_BODY_TOO_LARGE` → 413 (RFC 9110 §15.5.14 Content Too Large): the body is over the adapter's limit;
 *   answered before any claim, so the key stays free.
 * - `STORE_UNAVAILABLE` → 503; `STORE_SCHEMA_MISSING` → 503 too, with `Retry-After` (payonce's tables are not where
 *   the store looks: nothing ran and the key is free, so the client retries as for a store that is down, while the
 *   code tells operators it is a configuration to fix); `INVALID_OPTION`, `TRANSACTIONS_UNSUPPORTED`,
 *   `NESTED_CLAIM` and `TRANSACTION_ENDED` → 500 (server misconfiguration: a store without transactions in a
 *   one-commit mode, a nested claim of the held key, a transaction object used after its handler returned);
 *   `RECEIPT_CORRUPTED` → 500 (a stored receipt altered outside payonce).
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2.7 "Error Handling"; STYLE pattern 5.
 */
export const HTTP_PROBLEMS = Object.freeze({
  INVALID_REQUEST_KEY: { status: 400, title: 'Invalid request key' },
  IDEMPOTENCY_KEY_MISSING: { status: 400, title: 'Idempotency-Key is missing' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, title: 'Idempotency-Key is malformed' },
  INVALID_OPTION: { status: 500, title: 'Server misconfiguration' },
  REQUEST_IN_PROGRESS: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  CLAIM_LOST: { status: 409, title: 'The request lost its claim on the Idempotency-Key' },
  PAYLOAD_MISMATCH: { status: 422, title: 'Idempotency-Key reused with a different request' },
  REQUEST_BODY_TOO_LARGE: { status: 413, title: 'Request body too large' },
  STORE_UNAVAILABLE: { status: 503, title: 'Idempotency store unavailable' },
  STORE_SCHEMA_MISSING: { status: 503, title: 'Idempotency store is not migrated' },
  TRANSACTIONS_UNSUPPORTED: { status: 500, title: 'Server misconfiguration' },
  RECEIPT_CORRUPTED: { status: 500, title: 'Stored receipt is corrupted' },
  NESTED_CLAIM: { status: 500, title: 'Server misconfiguration' },
  TRANSACTION_ENDED: { status: 500, title: 'Server misconfiguration' },
}) satisfies ProblemCatalogue<ProblemCode>;

/** `{ code: status }` of `HTTP_PROBLEMS`. */
export const STATUS_BY_CODE: { readonly [K in ProblemCode]: number } = statusesOf(HTTP_PROBLEMS);

/** `{ code: title }` of `HTTP_PROBLEMS`: the RFC 9457 `title`, constant for a given `type`. */
export const TITLE_BY_CODE: { readonly [K in ProblemCode]: string } = titlesOf(HTTP_PROBLEMS);

/** True when `code` has a row in `HTTP_PROBLEMS` (an error of another layer or a newer module may not). */
export function isProblemCode(code: string): code is ProblemCode {
  return hasProblem(HTTP_PROBLEMS, code);
}
