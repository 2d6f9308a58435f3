import type { HttpResponse } from './http-exchange.js';
import { problemResponse } from './problem-response.js';

/**
 * The 413 problem+json answer (`REQUEST_BODY_TOO_LARGE`) every `Idempotency-Key` adapter sends itself for a body
 * over its limit (`limit`, bytes): before any claim, so nothing ran and the key is still free for a smaller retry.
 * The same on express, fastify and hono, never the application's error handler's page.
 * @see RFC 9110 §15.5.14 (413 Content Too Large); RFC 9457; docs/http.md "Limits".
 */
export function bodyTooLarge(limit: number): HttpResponse {
  return problemResponse(
    'REQUEST_BODY_TOO_LARGE',
    `The request body is over the limit of ${limit} bytes; nothing ran and the Idempotency-Key was not used.`,
  );
}
