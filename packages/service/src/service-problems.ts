import { HTTP_PROBLEMS } from 'payonce/internal/http/problem-status.js';
import { PAYMENT_PROBLEMS } from 'payonce/internal/payments/payment-problems.js';
import {
  type ProblemCatalogue,
  type ProblemResponse,
  renderProblem,
} from 'payonce/internal/problem/problem-details.js';
import { WEBHOOK_PROBLEMS } from 'payonce/internal/webhooks/webhook-problems.js';
import type { ServiceErrorCode } from './service-error.js';

/**
 * The reference service's own problem table: `CUSTOMER_ID_MISSING`, `ADMIN_TOKEN_INVALID` → 401;
 * `INVALID_REQUEST_BODY`, `CUSTOMER_ID_INVALID`, `MALFORMED_REQUEST` → 400; `JOB_NOT_FOUND`, `ROUTE_NOT_FOUND` →
 * 404; `PROVIDER_NOT_CONFIGURED` → 409; `REQUEST_TIMEOUT` → 408; `REQUEST_BODY_TOO_LARGE` → 413; `UNSUPPORTED_MEDIA_TYPE`
 * → 415; `REQUEST_HEADERS_TOO_LARGE` → 431; the operator console's (`src/service/admin`, docs/console.md):
 * `ADMIN_QUERY_INVALID` → 400; `ADMIN_CSRF_INVALID` → 403; `RECEIPT_NOT_FOUND`, `ATTEMPT_NOT_FOUND`,
 * `DELIVERY_NOT_FOUND` → 404; `CLAIM_NOT_STALE`, `RECEIPT_NOT_RETRYABLE`, `JOB_NOT_DEAD`, `DELIVERY_NOT_REPLAYABLE`,
 * `ADMIN_ACTION_UNAVAILABLE` → 409; `ADMIN_RATE_LIMITED`, `ADMIN_AUTH_THROTTLED` → 429.
 * @see RFC 9110 §15.5, RFC 6585 §5; docs/service.md "HTTP contract"; docs/errors.md.
 */
export const SERVICE_PROBLEMS = Object.freeze({
  CUSTOMER_ID_MISSING: { status: 401, title: 'X-Customer-Id is missing' },
  CUSTOMER_ID_INVALID: { status: 400, title: 'X-Customer-Id is malformed' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such route' },
  MALFORMED_REQUEST: { status: 400, title: 'Malformed HTTP request' },
  REQUEST_BODY_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  INVALID_REQUEST_BODY: { status: 400, title: 'Invalid request body' },
  ADMIN_TOKEN_INVALID: { status: 401, title: 'Admin token missing or wrong' },
  JOB_NOT_FOUND: { status: 404, title: 'Outbox job not found' },
  PROVIDER_NOT_CONFIGURED: { status: 409, title: 'Stripe-shaped provider not configured' },
  ADMIN_CSRF_INVALID: { status: 403, title: 'CSRF token missing or wrong' },
  ADMIN_QUERY_INVALID: { status: 400, title: 'Admin query parameter invalid' },
  ADMIN_RATE_LIMITED: { status: 429, title: 'Admin action rate limit reached' },
  ADMIN_AUTH_THROTTLED: { status: 429, title: 'Too many wrong admin tokens' },
  ADMIN_ACTION_UNAVAILABLE: { status: 409, title: 'Admin action unavailable here' },
  RECEIPT_NOT_FOUND: { status: 404, title: 'Receipt not found' },
  CLAIM_NOT_STALE: { status: 409, title: 'Claim is not stale' },
  RECEIPT_NOT_RETRYABLE: { status: 409, title: 'Receipt cannot be retried' },
  JOB_NOT_DEAD: { status: 409, title: 'Outbox job is not dead-lettered' },
  ATTEMPT_NOT_FOUND: { status: 404, title: 'Payment attempt not found' },
  DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  DELIVERY_NOT_REPLAYABLE: { status: 409, title: 'Webhook delivery cannot be replayed' },
}) satisfies ProblemCatalogue<ServiceErrorCode>;

/**
 * Every code the service's own routes (`/orders*`, `/admin/*`, the edge) answer: the webhook errors a route can
 * raise, the `Idempotency-Key` codes (their HTTP titles win over the webhook ones), the payments' and the
 * service's own. The webhook endpoints answer through the intake and `WEBHOOK_PROBLEMS` instead.
 */
export const SERVICE_ROUTE_PROBLEMS = Object.freeze({
  ...WEBHOOK_PROBLEMS,
  ...HTTP_PROBLEMS,
  ...PAYMENT_PROBLEMS,
  ...SERVICE_PROBLEMS,
});

/** A code the service's routes answer (a key of `SERVICE_ROUTE_PROBLEMS`). */
export type ServiceRouteCode = keyof typeof SERVICE_ROUTE_PROBLEMS;

/** True when the service's routes have a problem row for `code`. */
export function isServiceRouteCode(code: string): code is ServiceRouteCode {
  return Object.hasOwn(SERVICE_ROUTE_PROBLEMS, code);
}

/**
 * The RFC 9457 problem+json answer of a service route for `code` (status and title from
 * `SERVICE_ROUTE_PROBLEMS`); `detail` never carries secrets or request bodies.
 * @example serviceProblem('ORDER_NOT_FOUND', 'No order has this id.').status // 404
 */
export function serviceProblem(
  code: ServiceRouteCode,
  detail: string,
  headers: Readonly<Record<string, string>> = {},
): ProblemResponse {
  const definition: ProblemCatalogue<ServiceRouteCode>[ServiceRouteCode] = SERVICE_ROUTE_PROBLEMS[code];
  return renderProblem(code, definition, detail, headers);
}
