import type { AnyAppAnswer } from '../app/app-answers.js';

/**
 * Why `repeated` (the same request sent again with the same `Idempotency-Key`) is not a byte-exact replay of
 * `first`, or `null` when it is: the same status (or `status` when given), the header `Idempotent-Replayed: true`
 * (docs/storm-your-app.md "What the storm expects of your app"; the IETF Idempotency-Key draft's replay marker as payonce's middleware sends
 * it) and the same body bytes. Each missing part is named, so the app's author knows what to change.
 */
export function replayProblem(first: AnyAppAnswer, repeated: AnyAppAnswer, status = first.status): string | null {
  const missing: string[] = [];
  if (repeated.status !== status) missing.push(`status ${repeated.status} instead of ${status}`);
  const marker = repeated.headers['idempotent-replayed'];
  if (marker !== 'true') {
    missing.push(marker === undefined ? 'no Idempotent-Replayed: true header' : `Idempotent-Replayed: ${marker}`);
  }
  if (repeated.text !== first.text) missing.push('a body that differs from the first answer');
  return missing.length === 0 ? null : missing.join(', ');
}
