import type { FastifyInstance } from 'fastify';
import { SERVICE_BODY_LIMIT_BYTES } from './http-edge.js';
import { ServiceError } from './service-error.js';

/** Whether a parsed JSON value is an object (not `null`, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `charset` parameter of a Content-Type value (lower case, unquoted), or `null` when there is none. */
function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match ? (match[2] ?? '').toLowerCase() : null;
}

/**
 * JSON bodies in a scope: an empty body reads as `{}` (a JSON `null` stays `null`, refused by the routes), anything
 * unparsable is `INVALID_REQUEST_BODY`, a charset other than UTF-8 is 415 `UNSUPPORTED_MEDIA_TYPE` (RFC 8259 §8.1),
 * a body over `SERVICE_BODY_LIMIT_BYTES` is 413 `REQUEST_BODY_TOO_LARGE`.
 */
export function lenientJson(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  const options = { parseAs: 'string', bodyLimit: SERVICE_BODY_LIMIT_BYTES } as const;
  scope.addContentTypeParser('application/json', options, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'send JSON in UTF-8 (charset=utf-8 or none)'), undefined);
      return;
    }
    const text = String(body).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ServiceError('INVALID_REQUEST_BODY', 'the body is not JSON'), undefined);
    }
  });
}
