import {
  ClaimLost,
  PayloadMismatch,
  ReceiptCorrupted,
  RequestInProgress,
  STORE_RETRY_AFTER_MS,
  StoreSchemaMissing,
  StoreUnavailable,
} from '../core/errors.js';
import type { HttpResponse } from '../http/http-exchange.js';
import { hasProblem, renderProblem } from '../problem/problem-details.js';
import { isStoreOutage } from '../stores/sql/driver-error.js';
import { MalformedWebhookPayload } from './providers/malformed-webhook-payload.js';
import type { VerifyRejected } from './verify/signature-scheme.js';
import { WEBHOOK_PROBLEMS, type WebhookEdgeCode } from './webhook-problems.js';

/**
 * Why the intake did not answer with the handler's result:
 * `too_large` (body over `maxBodyBytes`), `signature_malformed` (a signature header or signed field that cannot
 * be parsed), `signature_invalid` (missing, wrong or stale signature), `malformed_payload` (authentic body a
 * profile cannot read), `payload_mismatch` (same key, different body), `in_progress` (claim held elsewhere),
 * `rate_limited` (an unauthenticated delivery of a client past its `refusalLimit`), `handler_failed`, `claim_lost`, `store_unavailable`, `integration_error` (the intake was wired wrongly: not
 * bytes, bad verify input).
 */
export type IntakeProblemKind =
  | 'too_large'
  | 'signature_malformed'
  | 'signature_invalid'
  | 'rate_limited'
  | 'malformed_payload'
  | 'payload_mismatch'
  | 'in_progress'
  | 'handler_failed'
  | 'claim_lost'
  | 'store_unavailable'
  | 'integration_error';

/** One refused or failed delivery, as handed to an acknowledgement to render. */
export interface IntakeProblem {
  readonly kind: IntakeProblemKind;
  /** Stable code: a `WebhookProblemCode` (see `WEBHOOK_PROBLEMS`). */
  readonly code: string;
  /** HTTP status of the default (problem+json) rendering. */
  readonly status: number;
  /** Human-readable reason; never contains secrets, signatures or body content. */
  readonly detail: string;
  /**
   * For `in_progress`, `store_unavailable` and `rate_limited`: suggested wait in milliseconds (`Retry-After` is its
   * ceiling in seconds).
   */
  readonly retryAfterMs: number | null;
  /** For `malformed_payload`: the dotted path of the unreadable field (`method`, `amount`, `body`). */
  readonly field: string | null;
  /** For `signature_*`: the verifier's result. */
  readonly verify: VerifyRejected | null;
}

/** Reject reasons that mean "the signature material cannot even be parsed" (HTTP 400); the rest are 401. */
const MALFORMED_REASONS = new Set([
  'malformed_header',
  'no_supported_signature',
  'timestamp_malformed',
  'timestamp_negative',
  'timestamp_wrong_units',
  'malformed_body',
]);

/** The problem for a rejected signature: 400 when it cannot be parsed, 401 when absent, wrong or stale. */
export function signatureProblem(verify: VerifyRejected): IntakeProblem {
  const malformed = MALFORMED_REASONS.has(verify.reason);
  const code: WebhookEdgeCode = malformed ? 'WEBHOOK_SIGNATURE_MALFORMED' : 'WEBHOOK_SIGNATURE_INVALID';
  return {
    kind: malformed ? 'signature_malformed' : 'signature_invalid',
    code,
    status: WEBHOOK_PROBLEMS[code].status,
    detail: `${verify.scheme}: ${verify.reason}${verify.header ? ` (${verify.header})` : ''}: ${verify.detail}`,
    retryAfterMs: null,
    field: null,
    verify,
  };
}

/**
 * A problem of `kind` with `code`; the status comes from `WEBHOOK_PROBLEMS` (500 for an unknown code). A
 * `STORE_UNAVAILABLE` problem (503) carries `Retry-After` (`STORE_RETRY_AFTER_MS`) unless `extra` gives one.
 */
export function intakeProblem(
  kind: IntakeProblemKind,
  code: string,
  detail: string,
  extra: { retryAfterMs?: number; field?: string } = {},
): IntakeProblem {
  return {
    kind,
    code,
    status: statusOf(code),
    detail,
    retryAfterMs: extra.retryAfterMs ?? (code === 'STORE_UNAVAILABLE' ? STORE_RETRY_AFTER_MS : null),
    field: extra.field ?? null,
    verify: null,
  };
}

function statusOf(code: string): number {
  return hasProblem(WEBHOOK_PROBLEMS, code) ? WEBHOOK_PROBLEMS[code].status : 500;
}

/** `Retry-After` in whole seconds, at least 1 (RFC 9110 §10.2.3). */
export function retryAfterHeader(retryAfterMs: number | null): Record<string, string> {
  return retryAfterMs === null ? {} : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}

/**
 * The RFC 9457 problem+json response of `problem`, titled by `WEBHOOK_PROBLEMS`; `Retry-After` when in progress.
 * An unknown code (never produced by the intake) is answered as `WEBHOOK_HANDLER_FAILED`.
 * @see RFC 9457; `src/problem/problem-details.ts`; `docs/errors.md`.
 */
export function problemOf(problem: IntakeProblem): HttpResponse {
  const code = hasProblem(WEBHOOK_PROBLEMS, problem.code) ? problem.code : 'WEBHOOK_HANDLER_FAILED';
  return renderProblem(code, WEBHOOK_PROBLEMS[code], problem.detail, retryAfterHeader(problem.retryAfterMs));
}

/**
 * The problem for an error thrown by the claim, the handler or the store: a `MalformedWebhookPayload` thrown by
 * the handler (a typed accessor such as `stripeObject` refusing the payload) is `malformed_payload` (400), a
 * database outage met by the handler's own statements (`isStoreOutage`: a timeout, cancel, lost connection, lock
 * wait or deadlock past the retries) `store_unavailable` (503 with `Retry-After`), any other handler error
 * `handler_failed` (500).
 */
export function problemOfFailure(error: unknown): IntakeProblem {
  if (error instanceof RequestInProgress) {
    return intakeProblem('in_progress', error.code, 'this event is being processed by another worker', {
      retryAfterMs: error.retryAfterMs,
    });
  }
  if (error instanceof PayloadMismatch) {
    return intakeProblem('payload_mismatch', error.code, 'this event key was first received with a different body');
  }
  if (error instanceof ClaimLost) {
    return intakeProblem('claim_lost', error.code, 'the claim was taken over; the result was not recorded');
  }
  if (error instanceof StoreUnavailable) {
    return intakeProblem('store_unavailable', error.code, 'the receipt store is unavailable');
  }
  if (error instanceof StoreSchemaMissing) {
    const detail = "the receipt store is not migrated (payonce's tables are missing); redeliver later";
    return intakeProblem('store_unavailable', error.code, detail, { retryAfterMs: error.retryAfterMs });
  }
  if (error instanceof ReceiptCorrupted) {
    return intakeProblem('integration_error', error.code, 'the stored receipt of this event is corrupted');
  }
  if (error instanceof MalformedWebhookPayload) {
    // A handler's typed read of the payload (`stripeObject`) failed: the payload, not the handler, is at fault.
    return intakeProblem('malformed_payload', error.code, error.message, { field: error.path.split(' ')[0] });
  }
  if (isStoreOutage(error)) {
    // The handler's own statements met a database that could not do the work now (a timeout, a cancel, a lost
    // connection, a lock wait or deadlock past the retries): the delivery did not fail, it could not run. 503.
    const detail = 'the database did not answer in time or lost the connection; redeliver later';
    return intakeProblem('store_unavailable', 'STORE_UNAVAILABLE', detail);
  }
  return intakeProblem('handler_failed', 'WEBHOOK_HANDLER_FAILED', 'the webhook handler failed; redeliver later');
}
