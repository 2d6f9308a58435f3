/**
 * Small helpers the side scripts share (side scripts of every part of the bench import them from here).
 */

/** A full garbage collection when the process runs with `--expose-gc` (as every side's process does), else nothing. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** How long a side's warm-up runs by default, ms: long enough for the JIT to reach steady state. */
export const WARMUP_MAX_MS = 1_000;
