/**
 * Delay before retry number `attempt` (1 = after the first failure), pure: exponential `baseMs · 2^(attempt−1)`
 * capped at `maxMs`, with "equal jitter": a uniform value between half the cap and the cap, so workers that
 * failed together do not retry together. `random` returns [0, 1). Result in whole milliseconds.
 * @see docs/design.md §7 "Worker lease".
 * @example backoffDelayMs(3, 1_000, 60_000, () => 0.5) // 3_000 (cap 4_000, jittered to 2_000–4_000)
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}
