import type { RejectReason } from './signature-scheme.js';

/** Largest accepted Unix-seconds value (11 digits, year 5138). A 13-digit value is milliseconds. */
export const MAX_UNIX_SECONDS = 99_999_999_999;

/** A parsed signed timestamp, or why it cannot be one. */
export type TimestampParse =
  | { readonly ok: true; readonly seconds: number }
  | { readonly ok: false; readonly reason: RejectReason; readonly detail: string };

/**
 * Parses a signed timestamp header: ASCII digits only, Unix seconds. `-5` is `timestamp_negative`; `1.5`, `+1`,
 * `1e9`, ` 1`, `hello` are `timestamp_malformed`; more than 11 digits (e.g. 13-digit `Date.now()`
 * milliseconds) is `timestamp_wrong_units`. Never throws.
 * @see Standard Webhooks spec "webhook-timestamp: integer Unix timestamp (seconds since epoch)";
 * Stripe-Signature `t=` (seconds).
 */
export function parseUnixSeconds(text: string): TimestampParse {
  if (/^-[0-9]+$/.test(text)) return { ok: false, reason: 'timestamp_negative', detail: 'timestamp is negative' };
  if (!/^[0-9]+$/.test(text)) {
    return { ok: false, reason: 'timestamp_malformed', detail: 'timestamp is not an integer number of seconds' };
  }
  const seconds = Number(text);
  if (seconds > MAX_UNIX_SECONDS) {
    const units = text.replace(/^0+/, '').length <= 14 ? 'milliseconds' : 'a unit finer than seconds';
    return { ok: false, reason: 'timestamp_wrong_units', detail: `timestamp looks like ${units}, not Unix seconds` };
  }
  return { ok: true, seconds };
}

/**
 * `timestamp_too_old` when `nowMs` is more than `toleranceSeconds` after the signed time,
 * `timestamp_too_new` when it is more than `toleranceSeconds` before it; `undefined` inside the window
 * (both ends inclusive, as stripe-node and the Standard Webhooks libraries compare `>`).
 */
export function outsideWindow(
  seconds: number,
  nowMs: number,
  toleranceSeconds: number,
): { readonly reason: RejectReason; readonly detail: string } | undefined {
  const ageMs = nowMs - seconds * 1000;
  const limitMs = toleranceSeconds * 1000;
  if (ageMs > limitMs) {
    return {
      reason: 'timestamp_too_old',
      detail: `signed ${Math.floor(ageMs / 1000)} s ago, tolerance ${toleranceSeconds} s`,
    };
  }
  if (-ageMs > limitMs) {
    return {
      reason: 'timestamp_too_new',
      detail: `signed ${Math.ceil(-ageMs / 1000)} s in the future, tolerance ${toleranceSeconds} s`,
    };
  }
  return undefined;
}
