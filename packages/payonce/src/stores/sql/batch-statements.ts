import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type { SqlContext } from './sql-context.js';

/** One row of a batched claim (a leader: its key appears once in the batch). */
export interface ClaimRow {
  readonly key: RequestKey;
  readonly nowMs: number;
  readonly fingerprint: string | null;
}

/** One row of a batched completion. */
export interface CompleteRow {
  readonly key: RequestKey;
  readonly attempt: number;
  readonly nowMs: number;
  readonly status: number;
  /** The response headers as the JSON text stored in `response_headers`. */
  readonly headersJson: string;
  readonly body: Uint8Array;
}

/** A key as one string (NUL separates the parts: a `RequestKey` part never contains NUL). */
export function keyId(key: RequestKey): string {
  return `${key.provider}\u0000${key.externalId}`;
}

/**
 * The values of `byKeyId` (a map keyed by `keyId`) in ascending key-id order: the order every batch takes its rows
 * in, so two batches lock the same keys in the same order.
 */
export function inKeyOrder<T>(byKeyId: ReadonlyMap<string, T>): T[] {
  return [...byKeyId].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, value]) => value);
}

/**
 * The multi-row statements of one SQL backend. Each runs as ONE autocommit statement (one commit) on the store's
 * pool, never in a caller's transaction; errors are the driver's, unchanged. Rows come sorted by key, so two batches
 * lock overlapping keys in the same order.
 */
export interface BatchStatements {
  /**
   * Inserts a `processing` claim at attempt 1 for every row whose key does not exist. Returns the ids (`keyId`) of
   * the rows inserted, or `'none'` when the statement inserted nothing because some key existed (MySQL: a plain
   * multi-row INSERT fails whole with errno 1062 — the caller reads the keys back and inserts the rest again).
   */
  insertClaims(ctx: SqlContext, rows: readonly ClaimRow[]): Promise<ReadonlySet<string> | 'none'>;
  /** The stored receipts of `keys`, by `keyId`; absent keys have no entry. */
  findReceipts(ctx: SqlContext, keys: readonly RequestKey[]): Promise<Map<string, Receipt>>;
  /**
   * Completes every row still `processing` at its `attempt` (fencing) and returns the ids of the rows THIS
   * statement completed.
   */
  completeReceipts(ctx: SqlContext, rows: readonly CompleteRow[]): Promise<ReadonlySet<string>>;
}
