import type { Verdict } from '../acceptance/check-runner.js';
import type { ClickExchange } from './click-wire.js';

/** A short description of an answer: `error -9 (Transaction cancelled)`, or the HTTP failure. */
export function describeClick(exchange: ClickExchange): string {
  if (exchange.status === null) return exchange.received;
  if (exchange.status !== 200) return `HTTP ${exchange.status} (Click expects 200 with a JSON body)`;
  const answer = exchange.answer;
  if (answer === null) return `not a JSON object: ${exchange.received.slice(0, 80)}`;
  const id =
    answer.merchant_confirm_id !== undefined
      ? `, merchant_confirm_id ${JSON.stringify(answer.merchant_confirm_id)}`
      : answer.merchant_prepare_id !== undefined
        ? `, merchant_prepare_id ${JSON.stringify(answer.merchant_prepare_id)}`
        : '';
  return `error ${JSON.stringify(answer.error)}${id}`;
}

/** The `error` of an answer as a number, or `null` (no answer, not HTTP 200, no numeric error). */
export function clickError(exchange: ClickExchange): number | null {
  const error = exchange.status === 200 ? exchange.answer?.error : undefined;
  return typeof error === 'number' ? error : null;
}

/** A verdict: an `error` among `codes`, and every named field passing its test. */
export function expectClick(
  exchange: ClickExchange,
  codes: readonly number[],
  tests: Readonly<Record<string, (value: unknown) => boolean>> = {},
): Verdict {
  const got = describeClick(exchange);
  const error = clickError(exchange);
  if (error === null || !codes.includes(error)) return { passed: false, got };
  const answer = exchange.answer as Readonly<Record<string, unknown>>;
  for (const [field, test] of Object.entries(tests)) {
    if (!test(answer[field])) return { passed: false, got: `${field}: ${JSON.stringify(answer[field])} in ${got}` };
  }
  return { passed: true, got };
}

/** A merchant's id: a positive integer, or a non-empty string of digits (Click reads it as an int). */
export const isMerchantId = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^[1-9]\d*$/.test(v));

/** Two merchant ids are the same id, whether sent as a number or as digits. */
export const sameId = (expected: unknown) => (v: unknown) => expected !== undefined && String(v) === String(expected);
