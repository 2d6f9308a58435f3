/** How much a scale side delivers: untimed warm-up keys, then timed keys until `keys` or `maxMs`, whichever first. */
export interface SideSizes {
  readonly warmupKeys: number;
  readonly keys: number;
  readonly maxMs: number;
}

/** A full run: 5 s of timed deliveries (a few thousand on PostgreSQL at 8 callers). */
export const FULL_SIZES: SideSizes = Object.freeze({ warmupKeys: 2_000, keys: 200_000, maxMs: 5_000 });

/** A smoke run (`BENCH_QUICK=1`). */
export const QUICK_SIZES: SideSizes = Object.freeze({ warmupKeys: 50, keys: 200, maxMs: 1_000 });

/** A smoke run seeds at most this many rows (in its own namespace, `payonce_scale_<n>`). */
export const QUICK_STORED_MAX = 5_000;
