import { InvalidOption } from '../../core/errors.js';
import { positiveInt } from '../../core/options.js';

/** Largest accepted `maxBatchSize` (one statement's parameters stay far below every driver's limits). */
export const MAX_BATCH_SIZE_LIMIT = 10_000;
/** Default rows per batched statement. */
export const DEFAULT_MAX_BATCH_SIZE = 256;
/** Default batches in flight at once when the pool size is unknown: the default pool size of `pg` and `mysql2`. */
export const DEFAULT_MAX_CONCURRENT_BATCHES = 10;

/** Batching as the store runs it: every field set. */
export interface ResolvedBatching {
  readonly maxBatchSize: number;
  readonly maxConcurrentBatches: number;
}

/**
 * Validates `SqlStoreOptions.batching`: `undefined`/`false` → `null` (no batching), `true` → the defaults, an
 * object → its fields checked (`maxBatchSize` 1–10 000, `maxConcurrentBatches` 1–1 000). `poolSize` (from
 * `connect`) is the default of `maxConcurrentBatches`.
 * @throws {InvalidOption} for any other value or a field out of range.
 */
export function resolveBatching(batching: unknown, poolSize?: number): ResolvedBatching | null {
  if (batching === undefined || batching === false) return null;
  const fallbackSlots = poolSize ?? DEFAULT_MAX_CONCURRENT_BATCHES;
  if (batching === true) {
    return Object.freeze({ maxBatchSize: DEFAULT_MAX_BATCH_SIZE, maxConcurrentBatches: fallbackSlots });
  }
  if (typeof batching !== 'object' || batching === null || Array.isArray(batching)) {
    throw new InvalidOption(
      'batching',
      `must be a boolean or { maxBatchSize, maxConcurrentBatches }, got ${String(batching)}`,
    );
  }
  const { maxBatchSize, maxConcurrentBatches, ...rest } = batching as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new InvalidOption(`batching.${unknown[0]}`, 'is not a batching option');
  return Object.freeze({
    maxBatchSize:
      maxBatchSize === undefined
        ? DEFAULT_MAX_BATCH_SIZE
        : positiveInt('batching.maxBatchSize', maxBatchSize, MAX_BATCH_SIZE_LIMIT),
    maxConcurrentBatches:
      maxConcurrentBatches === undefined
        ? fallbackSlots
        : positiveInt('batching.maxConcurrentBatches', maxConcurrentBatches, 1_000),
  });
}

/**
 * `batching` with `maxConcurrentBatches` defaulted to the pool size of a pool `connect` created (`max` of `pg`,
 * `connectionLimit` of `mysql2`), so one batch can be in flight per connection. Anything but `true` or a plain object
 * without `maxConcurrentBatches` is returned unchanged (and validated by the store).
 */
export function withPoolSize(batching: unknown, poolSize: unknown): unknown {
  if (typeof poolSize !== 'number' || !Number.isSafeInteger(poolSize) || poolSize < 1 || poolSize > 1_000) {
    return batching;
  }
  if (batching === true) return { maxConcurrentBatches: poolSize };
  if (typeof batching === 'object' && batching !== null && !Array.isArray(batching)) {
    const fields = batching as Record<string, unknown>;
    if (fields.maxConcurrentBatches === undefined) return { ...fields, maxConcurrentBatches: poolSize };
  }
  return batching;
}
