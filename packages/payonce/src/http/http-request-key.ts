import { RequestKey } from '../core/request-key.js';
import { sha256Hex } from '../core/sha256-hex.js';
import { stringArrayJson } from './string-array-json.js';

/**
 * Maps one client's idempotency key onto a store `RequestKey`: provider = `namespace` (default `http`),
 * external id = SHA-256 hex (64 characters) of the JSON array `["payonce-http-key/1", principal, method, route,
 * key]`. JSON encodes each part with its own quotes and escapes, so no two different tuples share an encoding;
 * the digest keeps a 255-character key inside the 160-character limit of a `RequestKey` part. The same key
 * from another principal, with another method or on another route is therefore another receipt.
 * @throws {InvalidRequestKey} if `namespace` is empty, longer than 160 characters or contains NUL.
 * @see docs/design.md §4 "Scope"; draft-ietf-httpapi-idempotency-key-header-07
 *   §2.2 "Uniqueness of Idempotency Key" (scope per resource and client).
 * @example httpRequestKey('http', 'acct_1', 'POST', '/v1/payments', '8e03978e').provider // 'http'
 */
export function httpRequestKey(
  namespace: string,
  principal: string,
  method: string,
  route: string,
  idempotencyKey: string,
): RequestKey {
  const encoded = stringArrayJson(['payonce-http-key/1', principal, method, route, idempotencyKey]);
  return new RequestKey(namespace, sha256Hex(encoded));
}
