import type { HttpResponse } from './http-exchange.js';
import { type ProblemCode, problemType, STATUS_BY_CODE, TITLE_BY_CODE } from './problem-status.js';

/**
 * An RFC 9457 problem response for `code`: status from `STATUS_BY_CODE`, `Content-Type:
 * application/problem+json`, body `{ type, title, status, detail, code }` (`code` is an extension member with the
 * stable code). `detail` must never contain secrets or request bodies. Extra headers (e.g. `Retry-After`) are
 * added as given.
 * @see RFC 9457 §3 (members), §3.1.1 (`type` URI); `docs/errors.md`.
 * @example problemResponse('PAYLOAD_MISMATCH', 'This key was used with another body.').status // 422
 */
export function problemResponse(
  code: ProblemCode,
  detail: string,
  headers: Readonly<Record<string, string>> = {},
): HttpResponse {
  const status = STATUS_BY_CODE[code];
  const body = JSON.stringify({ type: problemType(code), title: TITLE_BY_CODE[code], status, detail, code });
  return Object.freeze({
    status,
    headers: Object.freeze({ ...headers, 'content-type': 'application/problem+json' }),
    body: new TextEncoder().encode(body),
  });
}
