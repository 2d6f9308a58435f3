import { PayonceError } from 'payonce/internal/core/errors.js';

/**
 * Stable codes of the errors the reference service answers itself (not raised by a library layer);
 * `SERVICE_PROBLEMS` gives their HTTP answers: `CUSTOMER_ID_MISSING` 401, `CUSTOMER_ID_INVALID` 400,
 * `INVALID_REQUEST_BODY` 400, `ADMIN_TOKEN_INVALID` 401, `JOB_NOT_FOUND` 404, `PROVIDER_NOT_CONFIGURED` 409, and the
 * edge's own answers: `ROUTE_NOT_FOUND` 404, `MALFORMED_REQUEST` 400, `REQUEST_BODY_TOO_LARGE` 413,
 * `UNSUPPORTED_MEDIA_TYPE` 415, `REQUEST_TIMEOUT` 408, `REQUEST_HEADERS_TOO_LARGE` 431; and the operator console's
 * (`/admin/api`, docs/console.md): `ADMIN_CSRF_INVALID` 403, `ADMIN_QUERY_INVALID` 400, `ADMIN_RATE_LIMITED` 429, `ADMIN_AUTH_THROTTLED` 429, `ADMIN_ACTION_UNAVAILABLE` 409, `RECEIPT_NOT_FOUND` 404, `CLAIM_NOT_STALE` 409, `RECEIPT_NOT_RETRYABLE` 409, `JOB_NOT_DEAD` 409, `ATTEMPT_NOT_FOUND` 404, `DELIVERY_NOT_FOUND` 404, `DELIVERY_NOT_REPLAYABLE` 409.
 * @see docs/service.md "HTTP contract"; docs/errors.md.
 */
export type ServiceErrorCode =
  | 'CUSTOMER_ID_MISSING'
  | 'CUSTOMER_ID_INVALID'
  | 'ROUTE_NOT_FOUND'
  | 'MALFORMED_REQUEST'
  | 'REQUEST_BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'REQUEST_TIMEOUT'
  | 'REQUEST_HEADERS_TOO_LARGE'
  | 'INVALID_REQUEST_BODY'
  | 'ADMIN_TOKEN_INVALID'
  | 'JOB_NOT_FOUND'
  | 'PROVIDER_NOT_CONFIGURED'
  | 'ADMIN_CSRF_INVALID'
  | 'ADMIN_QUERY_INVALID'
  | 'ADMIN_RATE_LIMITED'
  | 'ADMIN_AUTH_THROTTLED'
  | 'ADMIN_ACTION_UNAVAILABLE'
  | 'RECEIPT_NOT_FOUND'
  | 'CLAIM_NOT_STALE'
  | 'RECEIPT_NOT_RETRYABLE'
  | 'JOB_NOT_DEAD'
  | 'ATTEMPT_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'DELIVERY_NOT_REPLAYABLE';

/**
 * An error of the reference service's HTTP edge (`src/service`): a request without `X-Customer-Id`, a body that
 * is not the documented JSON, a wrong admin token, a refused operator action. Answered as RFC 9457
 * problem+json with the status of `SERVICE_PROBLEMS[code]`.
 * @example throw new ServiceError('CUSTOMER_ID_MISSING', 'send X-Customer-Id');
 */
export class ServiceError extends PayonceError<ServiceErrorCode> {
  readonly code: ServiceErrorCode;
  constructor(code: ServiceErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
