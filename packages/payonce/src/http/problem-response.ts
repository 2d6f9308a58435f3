import { renderProblem } from '../problem/problem-details.js';
import type { HttpResponse } from './http-exchange.js';
import { HTTP_PROBLEMS, type ProblemCode } from './problem-status.js';

/**
 * An RFC 9457 problem response for `code` as the HTTP layer answers it: status and title from `HTTP_PROBLEMS`,
 * `Content-Type: application/problem+json`, body `{ type, title, status, detail, code }` (`code` is an extension
 * member with the stable code). `detail` must never contain secrets or request bodies. Extra headers (e.g.
 * `Retry-After`) are added as given.
 * @see RFC 9457 §3 (members), §3.1.1 (`type` URI); `docs/errors.md`.
 * @example problemResponse('PAYLOAD_MISMATCH', 'This key was used with another body.').status // 422
 */
export function problemResponse(
  code: ProblemCode,
  detail: string,
  headers: Readonly<Record<string, string>> = {},
): HttpResponse {
  return renderProblem(code, HTTP_PROBLEMS[code], detail, headers);
}
