/**
 * How much a scale side delivers: untimed warm-up keys, then (PostgreSQL) untimed windows until the full-page
 * writes have settled or `settleMaxMs` has passed (`wal-settle.ts`), then timed keys until `keys` or `maxMs`,
 * whichever first.
 */
export interface SideSizes {
  readonly warmupKeys: number;
  readonly settleMaxMs: number;
  readonly keys: number;
  readonly maxMs: number;
}

/**
 * A full run: 5 s of timed deliveries (a few thousand on PostgreSQL at 8 callers), after at most 60 s of settling
 * (about 25 000 deliveries take a 1 M-row table past the page images of a checkpoint here).
 */
export const FULL_SIZES: SideSizes = Object.freeze({
  warmupKeys: 2_000,
  settleMaxMs: 60_000,
  keys: 200_000,
  maxMs: 5_000,
});

/** A smoke run (`BENCH_QUICK=1`). */
export const QUICK_SIZES: SideSizes = Object.freeze({ warmupKeys: 50, settleMaxMs: 1_000, keys: 200, maxMs: 1_000 });

/** A smoke run seeds at most this many rows (in its own namespace, `payonce_scale_<n>`). */
export const QUICK_STORED_MAX = 5_000;
