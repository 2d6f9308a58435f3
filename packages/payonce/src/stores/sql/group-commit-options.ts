import { InvalidOption } from '../../core/errors.js';
import { positiveInt } from '../../core/options.js';
import { DEFAULT_MAX_CONCURRENT_BATCHES } from './batch-options.js';
import type { SqlDialect } from './sql-dialect.js';

/**
 * Default callers per shared transaction. The callers of one batch run one after another and are all answered at
 * its commit, so a batch's latency is the sum of its callers' round trips: 16 bounds it (about 16 × 16 round trips)
 * while a commit is still shared 16 ways. Never more than {@link MAX_GROUP_BATCH_SIZE}.
 */
export const DEFAULT_GROUP_BATCH_SIZE = 16;

/**
 * Most callers per shared transaction: PostgreSQL keeps the ids of at most 64 subtransactions of a transaction in
 * shared memory (`PGPROC_MAX_CACHED_SUBXIDS`, src/include/storage/proc.h); past that every other session's snapshot
 * checks go through the `pg_subtrans` SLRU. One savepoint per caller that writes is one subtransaction.
 */
export const MAX_GROUP_BATCH_SIZE = 64;

/** Tuning of group commit (`WebhookIntakeOptions.groupCommit`; docs/design.md §11 "Group commit"). */
export interface GroupCommitOptions {
  /**
   * Most callers one shared transaction carries (1–64: above 64, PostgreSQL's cache of a transaction's subtransaction
   * ids overflows). A batch's callers are all answered at its commit, after the last one's round trips, so a smaller
   * batch answers sooner and a larger one shares a commit more ways. @default 16
   */
  readonly maxBatchSize?: number;
  /**
   * Most shared transactions open at once (1–1 000): each holds one connection of the store's pool while it runs.
   * @default 10 (the default pool size of `pg` and `mysql2`); 1 on SQLite (one connection)
   */
  readonly maxConcurrentBatches?: number;
}

/**
 * Validates `GroupCommitOptions`: `true`/`undefined` → the defaults, an object → its fields checked.
 * @throws {InvalidOption} (`where`) for another value, an unknown field or a field out of range.
 */
export function resolveGroupCommit(
  options: unknown,
  dialect: SqlDialect,
  where = 'groupCommit',
): Required<GroupCommitOptions> {
  const slots = dialect.name === 'sqlite' ? 1 : DEFAULT_MAX_CONCURRENT_BATCHES;
  if (options === undefined || options === true) {
    return Object.freeze({ maxBatchSize: DEFAULT_GROUP_BATCH_SIZE, maxConcurrentBatches: slots });
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOption(where, `must be true or { maxBatchSize, maxConcurrentBatches }, got ${String(options)}`);
  }
  const { maxBatchSize, maxConcurrentBatches, ...rest } = options as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new InvalidOption(`${where}.${unknown[0]}`, 'is not a group commit option');
  return Object.freeze({
    maxBatchSize:
      maxBatchSize === undefined
        ? DEFAULT_GROUP_BATCH_SIZE
        : positiveInt(`${where}.maxBatchSize`, maxBatchSize, MAX_GROUP_BATCH_SIZE),
    maxConcurrentBatches:
      maxConcurrentBatches === undefined
        ? slots
        : positiveInt(`${where}.maxConcurrentBatches`, maxConcurrentBatches, 1_000),
  });
}
