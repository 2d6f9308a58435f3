import { problemOf } from '../http-edge.js';
import { ServiceError } from '../service-error.js';
import { serviceProblem } from '../service-problems.js';

/** Codes answered 429 with `Retry-After`: the replay rate limit and the failed-token throttle. */
const RETRY_LATER = new Set(['ADMIN_RATE_LIMITED', 'ADMIN_AUTH_THROTTLED']);

/** The wait in whole seconds an `ADMIN_RATE_LIMITED`/`ADMIN_AUTH_THROTTLED` message names (`… in N s`), at least 1. */
export function retryAfterSeconds(error: ServiceError): number {
  const match = /in (\d+) s/.exec(error.message);
  return match ? Math.max(1, Number(match[1])) : 1;
}

/**
 * The problem+json answer of an error in the admin API or the console pages: `problemOf`'s, plus `Retry-After`
 * (seconds, RFC 9110 §10.2.3) on the 429s. `null` when the error is not a known one (answer 500).
 */
export function adminProblemOf(error: unknown): ReturnType<typeof problemOf> {
  if (error instanceof ServiceError && RETRY_LATER.has(error.code)) {
    return serviceProblem(error.code, error.message, { 'retry-after': String(retryAfterSeconds(error)) });
  }
  return problemOf(error);
}
