import type { HttpResponse } from '../http/http-exchange.js';
import { problemResponse } from '../http/problem-response.js';
import { isProblemCode, PROBLEM_TYPE_BASE, STATUS_BY_CODE } from '../http/problem-status.js';
import type { VerifyRejected } from './verify/signature-scheme.js';

/**
 * Why the intake did not answer with the handler's result:
 * `too_large` (body over `maxBodyBytes`), `signature_malformed` (a signature header or signed field that cannot
 * be parsed), `signature_invalid` (missing, wrong or stale signature), `malformed_payload` (authentic body a
 * profile cannot read), `payload_mismatch` (same key, different body), `in_progress` (claim held elsewhere),
 * `handler_failed`, `claim_lost`, `store_unavailable`, `integration_error` (the intake was wired wrongly: not
 * bytes, bad verify input).
 */
export type IntakeProblemKind =
  | 'too_large'
  | 'signature_malformed'
  | 'signature_invalid'
  | 'malformed_payload'
  | 'payload_mismatch'
  | 'in_progress'
  | 'handler_failed'
  | 'claim_lost'
  | 'store_unavailable'
  | 'integration_error';

/**
 * Codes of the problems that exist only at the webhook edge (no error class behind them). Their statuses are in
 * {@link WEBHOOK_EDGE_STATUS}; every other code comes from an error and maps through `STATUS_BY_CODE`.
 */
export type WebhookEdgeCode =
  | 'WEBHOOK_BODY_TOO_LARGE'
  | 'WEBHOOK_SIGNATURE_MALFORMED'
  | 'WEBHOOK_SIGNATURE_INVALID'
  | 'WEBHOOK_HANDLER_FAILED';

/**
 * HTTP statuses of the webhook-edge codes: 413 (RFC 9110 §15.5.14 Content Too Large), 400 for a signature that
 * cannot be parsed, 401 for one that is missing, wrong or outside its time window, 500 for a handler that threw
 * (a 5xx makes every provider redeliver).
 * @see SPEC §5; Stripe "Return a 2xx status code quickly"; Standard Webhooks spec "Retry schedule".
 */
export const WEBHOOK_EDGE_STATUS = Object.freeze({
  WEBHOOK_BODY_TOO_LARGE: 413,
  WEBHOOK_SIGNATURE_MALFORMED: 400,
  WEBHOOK_SIGNATURE_INVALID: 401,
  WEBHOOK_HANDLER_FAILED: 500,
} as const satisfies Record<WebhookEdgeCode, number>);

const EDGE_TITLE: Record<WebhookEdgeCode, string> = {
  WEBHOOK_BODY_TOO_LARGE: 'Webhook body too large',
  WEBHOOK_SIGNATURE_MALFORMED: 'Webhook signature is malformed',
  WEBHOOK_SIGNATURE_INVALID: 'Webhook signature is invalid',
  WEBHOOK_HANDLER_FAILED: 'Webhook handler failed',
};

/** One refused or failed delivery, as handed to an acknowledgement to render. */
export interface IntakeProblem {
  readonly kind: IntakeProblemKind;
  /** Stable code: a `ProblemCode` of `src/http` or a {@link WebhookEdgeCode}. */
  readonly code: string;
  /** HTTP status of the default (problem+json) rendering. */
  readonly status: number;
  /** Human-readable reason; never contains secrets, signatures or body content. */
  readonly detail: string;
  /** For `in_progress`: suggested wait in milliseconds (`Retry-After` is its ceiling in seconds). */
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
    status: WEBHOOK_EDGE_STATUS[code],
    detail: `${verify.scheme}: ${verify.reason}${verify.header ? ` (${verify.header})` : ''}: ${verify.detail}`,
    retryAfterMs: null,
    field: null,
    verify,
  };
}

/** A problem of `kind` with `code`; the status comes from `STATUS_BY_CODE` or {@link WEBHOOK_EDGE_STATUS}. */
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
    retryAfterMs: extra.retryAfterMs ?? null,
    field: extra.field ?? null,
    verify: null,
  };
}

function statusOf(code: string): number {
  if (Object.hasOwn(WEBHOOK_EDGE_STATUS, code)) return WEBHOOK_EDGE_STATUS[code as WebhookEdgeCode];
  if (isProblemCode(code)) return STATUS_BY_CODE[code];
  return 500;
}

/** `Retry-After` in whole seconds, at least 1 (RFC 9110 §10.2.3). */
export function retryAfterHeader(retryAfterMs: number | null): Record<string, string> {
  return retryAfterMs === null ? {} : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}

/**
 * The RFC 9457 problem+json response of `problem`: through `problemResponse` for codes of `STATUS_BY_CODE`,
 * with the same body shape and `type` base for the webhook-edge codes; `Retry-After` when in progress.
 * @see RFC 9457; `src/http/problem-response.ts`; `docs/errors.md`.
 */
export function problemOf(problem: IntakeProblem): HttpResponse {
  const headers = retryAfterHeader(problem.retryAfterMs);
  if (isProblemCode(problem.code)) return problemResponse(problem.code, problem.detail, headers);
  const code = problem.code as WebhookEdgeCode;
  const body = JSON.stringify({
    type: `${PROBLEM_TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`,
    title: EDGE_TITLE[code] ?? 'Webhook delivery refused',
    status: problem.status,
    detail: problem.detail,
    code,
  });
  return Object.freeze({
    status: problem.status,
    headers: Object.freeze({ ...headers, 'content-type': 'application/problem+json' }),
    body: new TextEncoder().encode(body),
  });
}
