import type { CaptureExpectation } from './capture.js';
import type { CaptureVerdict, DeliveryResult } from './replay-report.js';

/** 4xx statuses that mean "not now, try again" rather than a refusal (RFC 9110 408, 409 in progress, 425, 429). */
const RETRY_LATER = new Set([408, 409, 425, 429]);

function summary(results: readonly DeliveryResult[]): string {
  const counts = new Map<string, number>();
  for (const r of results) {
    const key = r.status === null ? `error (${r.error ?? 'no answer'})` : String(r.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key} ×${n}`).join(', ');
}

/**
 * Judges a capture's answers against its `expect` (the rule `payonce replay` exits 1 on):
 * - `accepted`: at least one copy got a 2xx and every other copy a 2xx or a retry-later 4xx (409 while another
 *   copy holds the event's claim, 408, 425, 429): what a provider sees when its redelivery ends in an
 *   acknowledgement. A 5xx, another 4xx or a delivery without an answer contradicts.
 * - `rejected`: every copy got a 4xx refusal (any 4xx but 408/409/425/429). A 2xx, a retry-later status, a 5xx or
 *   a missing answer contradicts: the delivery was not refused, or not answered.
 * - no `expect`: `unchecked`.
 * @returns the verdict and a short reason (`200 ×3`, `expected rejected, got 200 ×3`).
 * @see docs/design.md §5 (2xx once recorded, 4xx for refusals, 409 + Retry-After while in progress, 5xx for a retry).
 */
export function captureVerdict(
  expect: CaptureExpectation | null,
  results: readonly DeliveryResult[],
): { verdict: CaptureVerdict; reason: string } {
  const answers = summary(results);
  if (expect === null) return { verdict: 'unchecked', reason: answers };
  const success = (s: number | null) => s !== null && s >= 200 && s < 300;
  const refusal = (s: number | null) => s !== null && s >= 400 && s < 500 && !RETRY_LATER.has(s);
  const later = (s: number | null) => s !== null && RETRY_LATER.has(s);
  const holds =
    expect === 'accepted'
      ? results.some((r) => success(r.status)) && results.every((r) => success(r.status) || later(r.status))
      : results.length > 0 && results.every((r) => refusal(r.status));
  return holds
    ? { verdict: 'matched', reason: answers }
    : { verdict: 'contradicted', reason: `expected ${expect}, got ${answers}` };
}
