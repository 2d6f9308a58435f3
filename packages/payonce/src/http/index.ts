/**
 * `payonce/http`: the framework-neutral Idempotency-Key layer (docs/design.md §4). The adapters are separate entry points so
 * that importing this one loads no web framework: `src/http/express-idempotency-key.ts`,
 * `src/http/fastify-idempotency-key.ts`, `src/http/hono-idempotency-key.ts`.
 * @see docs/http.md; draft-ietf-httpapi-idempotency-key-header-07; Stripe API reference "Idempotent requests".
 */

export {
  hasProblem,
  PROBLEM_TYPE_BASE,
  type ProblemCatalogue,
  type ProblemDefinition,
  type ProblemResponse,
  problemType,
  renderProblem,
} from '../problem/problem-details.js';
export { canonicalJson } from './canonical-json.js';
export type { HttpExchange, HttpResponse } from './http-exchange.js';
export { httpRequestKey } from './http-request-key.js';
export {
  coreOf,
  createIdempotencyCore,
  type IdempotencyCore,
  type IdempotencyCoreOptions,
  type IdempotencyCoreSource,
  type IdempotencyResult,
  type RouteAnswer,
  type RouteNext,
  type StackTransactionBox,
} from './idempotency-core.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  MAX_IDEMPOTENCY_KEY_CHARS,
  type ParsedIdempotencyKey,
  parseIdempotencyKey,
} from './idempotency-key-header.js';
export {
  type IdempotencyKeyPolicy,
  type ResolvedIdempotencyKeyPolicy,
  type RouteRef,
  resolveIdempotencyKeyPolicy,
} from './idempotency-key-policy.js';
export { problemResponse } from './problem-response.js';
export {
  HTTP_PROBLEMS,
  type HttpErrorCode,
  isProblemCode,
  type ProblemCode,
  STATUS_BY_CODE,
  TITLE_BY_CODE,
} from './problem-status.js';
export { canonicalJsonFingerprint, type RequestFingerprint, rawBodyFingerprint } from './request-fingerprint.js';
