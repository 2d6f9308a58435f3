import { constantTimeEqual } from './bytes.js';

/**
 * The signature check every shared-secret scheme ends with: for each configured secret in order, the expected
 * MAC (or credential) `expectedOf(secret)` is compared in constant time (`constantTimeEqual`) with every
 * presented candidate; the index of the first secret that any candidate matches is returned, `-1` when none
 * does. `expectedOf` may return `undefined` (that secret cannot sign this input): it is passed over. Candidates
 * of the wrong length never throw; they simply do not match. Each scheme keeps its own header parsing, its own
 * window check after a match and its own rejection codes.
 * @see RFC 2104 §5 (compare MACs in full); docs/design.md §5 "Signature schemes".
 * @example const index = matchingSecret(keys, [presented], (key) => hmac('sha256', key, [rawBody]));
 */
export function matchingSecret<S>(
  secrets: readonly S[],
  presented: readonly Uint8Array[],
  expectedOf: (secret: S) => Uint8Array | undefined,
): number {
  for (const [index, secret] of secrets.entries()) {
    const expected = expectedOf(secret);
    if (expected === undefined) continue;
    let matched = false;
    for (const candidate of presented) if (constantTimeEqual(candidate, expected)) matched = true;
    if (matched) return index;
  }
  return -1;
}
