import type { Verdict } from '../acceptance/check-runner.js';
import type { UzumExchange } from './uzum-wire.js';

/** A short description of an answer: `FAILED 10014 (HTTP 400)`, `CONFIRMED {…}`, or the HTTP failure. */
export function describeUzum(exchange: UzumExchange): string {
  if (exchange.status === null) return exchange.received;
  const answer = exchange.answer;
  if (answer === null) return `HTTP ${exchange.status}, not a JSON object: ${exchange.received.slice(0, 80)}`;
  if (answer.status === 'FAILED') return `FAILED ${JSON.stringify(answer.errorCode)} (HTTP ${exchange.status})`;
  const { timestamp: _timestamp, serviceId: _serviceId, ...rest } = answer;
  return `HTTP ${exchange.status} ${JSON.stringify(rest)}`;
}

/** The `errorCode` of a FAILED answer (as text), or `null`. */
export function uzumErrorCode(exchange: UzumExchange): string | null {
  const answer = exchange.answer;
  return answer?.status === 'FAILED' && answer.errorCode !== undefined ? String(answer.errorCode) : null;
}

/**
 * A verdict: a FAILED answer whose `errorCode` is one of `codes` (a string, or digits as a number: the fixtures
 * mark the JSON type unconfirmed), with HTTP 400 as the fixtures' http_status gives it.
 */
export function expectFailed(exchange: UzumExchange, codes: readonly string[]): Verdict {
  const got = describeUzum(exchange);
  return { passed: exchange.status === 400 && codes.includes(uzumErrorCode(exchange) ?? ''), got };
}

/** A verdict: HTTP 200 with `status` and every named field passing its test. */
export function expectStatus(
  exchange: UzumExchange,
  status: string,
  tests: Readonly<Record<string, (value: unknown) => boolean>> = {},
): Verdict {
  const got = describeUzum(exchange);
  if (exchange.status !== 200 || exchange.answer?.status !== status) return { passed: false, got };
  for (const [field, test] of Object.entries(tests)) {
    const value = exchange.answer[field];
    if (!test(value)) return { passed: false, got: `${field}: ${JSON.stringify(value)} in ${got}` };
  }
  return { passed: true, got };
}

/** A time in epoch ms. */
export const isTime = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** `v` is exactly `expected` (and `expected` was answered). */
export const same = (expected: unknown) => (v: unknown) => expected !== undefined && v === expected;
