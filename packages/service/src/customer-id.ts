import type { FastifyRequest } from 'fastify';
import { ServiceError } from './service-error.js';

/** Header naming the customer: the stand-in for authentication and the principal of `Idempotency-Key`. */
export const CUSTOMER_HEADER = 'x-customer-id';

/** A customer id: 1–160 visible ASCII characters (`!`–`~`), like an `Idempotency-Key`. */
const CUSTOMER_ID = /^[\x21-\x7e]{1,160}$/;

/**
 * The customer a request names in `X-Customer-Id`.
 * @throws {ServiceError} `CUSTOMER_ID_MISSING` when the header is absent or blank; `CUSTOMER_ID_INVALID` when it is
 *   sent twice or is not 1–160 visible ASCII characters.
 */
export function customerOf(request: FastifyRequest): string {
  // Node joins a repeated unknown header with ", ": read the lines as sent, so two headers are never one customer.
  const lines = request.raw.headersDistinct[CUSTOMER_HEADER] ?? [];
  if (lines.length > 1) throw new ServiceError('CUSTOMER_ID_INVALID', 'send X-Customer-Id once');
  const value = lines[0];
  if (value === undefined || value.trim() === '') {
    throw new ServiceError('CUSTOMER_ID_MISSING', 'send the customer id in X-Customer-Id');
  }
  if (!CUSTOMER_ID.test(value)) {
    throw new ServiceError('CUSTOMER_ID_INVALID', 'X-Customer-Id must be 1–160 visible ASCII characters');
  }
  return value;
}
