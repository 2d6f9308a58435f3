import type { StoreSchemaMissing } from './errors.js';
import type { Receipt, StoredResponse } from './receipt.js';
import type { RequestKey } from './request-key.js';

/** Input of `Store.insertClaim`. Times are Unix epoch milliseconds. */
export interface InsertClaimRequest {
  readonly key: RequestKey;
  readonly nowMs: number;
  /** SHA-256 hex of the payload, or `null` when the caller does not fingerprint. */
  readonly fingerprint: string | null;
}

/**
 * Result of `Store.insertClaim`: either this call created the receipt (`processing`, attempt 1), or a
 * receipt already existed and is returned as stored.
 */
export type InsertClaimResult =
  | { readonly inserted: true; readonly receipt: Receipt }
  | { readonly inserted: false; readonly receipt: Receipt };

/** Input of `Store.takeover`: a compare-and-set on (`status`, `attempts`). */
export interface TakeoverRequest {
  readonly key: RequestKey;
  /** The status seen by the caller: only `failed` (retry) or a stale `processing` may be taken over. */
  readonly expectedStatus: 'processing' | 'failed';
  /** The attempt count seen by the caller; the update applies only if it is still this value. */
  readonly expectedAttempts: number;
  readonly nowMs: number;
}

/** Identifies the claim a handler holds: the key plus its fencing token (attempt number). */
export interface FinishRequest {
  readonly key: RequestKey;
  readonly attempt: number;
  readonly nowMs: number;
}

/**
 * The cut-offs of one `Store.purgeBatch`, Unix epoch ms: finished receipts go when `finishedAtMs < beforeMs`,
 * abandoned claims when their last heartbeat `claimedAtMs < abandonedBeforeMs`. For store implementations.
 */
export interface PurgeCutoffs {
  readonly beforeMs: number;
  /** `null`: no claim is abandoned (only finished receipts go). */
  readonly abandonedBeforeMs: number | null;
}

/**
 * The storage seam of payonce. The guard (core) decides; a store only makes each step atomic and knows
 * nothing of payments or HTTP. Every implementation passes the one contract suite in `test/contract/`.
 *
 * Driver errors propagate as thrown; the guard wraps them in `StoreUnavailable`. A duplicate-key error of
 * the driver is never an error here: it means "already exists" and `insertClaim` returns the receipt.
 */
export interface Store {
  /** Short backend name for messages and metrics: `memory`, `sqlite`, `postgres`, `mysql`, `redis`. */
  readonly name: string;
  /** True when `withTransaction` exists (SQL stores). */
  readonly supportsTransactions: boolean;

  /**
   * Atomically creates the receipt in `processing` with `attempts = 1` and `claimedAtMs = nowMs`, relying on
   * the unique (provider, external_id) index — never "select, then insert". If a receipt exists, returns it.
   */
  insertClaim(request: InsertClaimRequest): Promise<InsertClaimResult>;

  /**
   * Compare-and-set: if the receipt still has `expectedStatus` and `expectedAttempts`, moves it to
   * `processing`, `attempts + 1`, `claimedAtMs = nowMs`, clears the error, and returns the new receipt.
   * Returns `null` if another worker changed it first. Never touches a `completed` receipt.
   */
  takeover(request: TakeoverRequest): Promise<Receipt | null>;

  /**
   * Marks the receipt `completed` with `response` if it is still `processing` at `attempt` (fencing).
   * Returns false, changing nothing, if the claim was lost.
   */
  complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean>;

  /**
   * The heartbeat of a running claim: sets `claimedAtMs = nowMs` (Unix epoch ms) if the receipt is still
   * `processing` at `attempt` (the same fencing as `complete`), so its lease runs again from now. Returns false,
   * changing nothing, if the claim was lost (taken over, finished, purged). Optional for a store written outside
   * payonce: the guard then renews nothing and a claim's lease runs from its claim. Every payonce store has it.
   * @see docs/design.md §3 "Leases and heartbeats".
   */
  renewClaim?(request: FinishRequest): Promise<boolean>;

  /** Marks the receipt `failed` with `error` if it is still `processing` at `attempt`; false if fenced. */
  fail(request: FinishRequest & { readonly error: string }): Promise<boolean>;

  /** The stored receipt, or `null`. Makes no claim. */
  find(key: RequestKey): Promise<Receipt | null>;

  /**
   * Deletes at most `limit` receipts that are finished (`completed` or `failed`) with `finishedAtMs` (Unix epoch ms)
   * before `beforeMs`, or abandoned: `processing` with `claimedAtMs` (the last heartbeat) before `abandonedBeforeMs`
   * — a claim whose owner died and whose key never came back. Without `abandonedBeforeMs` no `processing` receipt is
   * deleted (the contract before leases, kept for direct callers). The guard passes the earlier of
   * the cut-off and `now - leaseMs`, so a claim whose lease still runs is never deleted. With `provider`, only
   * receipts whose `key.provider` equals it byte for byte are deleted, so one provider's retention never removes
   * another's receipts in a shared store; without it, every provider's. Returns how many were deleted (fewer than
   * `limit` means nothing is left).
   * @see docs/design.md §3 "Purge"; the scoped form keeps webhook receipts alive through the HTTP layer's 24 h purge.
   */
  purgeBatch(beforeMs: number, limit: number, provider?: string, abandonedBeforeMs?: number): Promise<number>;

  /**
   * Optional capability: how many receipts are abandoned claims at the cut-off `abandonedBeforeMs` (Unix epoch ms):
   * `processing` with `claimedAtMs` (the last heartbeat) before it — the claims `purgeBatch` with that cut-off would
   * delete. For stores whose receipts cannot be read with SQL next to the application's tables, so the operator
   * console still counts their stuck claims. Implementations: Redis (a `SCAN` walk, every master of a Cluster).
   * @throws the driver's error when the store cannot be read.
   * @see docs/console.md "Overview".
   */
  countAbandoned?(abandonedBeforeMs: number): Promise<number>;

  /**
   * Optional capability: subscribes to the finish of `key`'s receipt, so a duplicate that waits for an in-flight
   * claim (`waitForInFlightMs`) is woken by the store instead of polling. The returned promise resolves once the
   * subscription is active: a `complete` or `fail` of that key committed after it resolves wakes `changed`. Stores
   * without it (MySQL, SQLite) are polled by the guard with `find`, with back-off.
   * Implementations: memory (in-process), PostgreSQL (`LISTEN/NOTIFY`, one listening connection per store), Redis
   * (pub/sub; sharded pub/sub on a Redis Cluster).
   * @throws the driver's error when the subscription cannot be made; the guard then falls back to polling.
   */
  watchReceipt?(key: RequestKey): Promise<ReceiptWatch>;

  /**
   * Optional capability: the configuration failure a driver error of this store reveals, or `null` for any other
   * error: `StoreSchemaMissing` when the driver says payonce's table (or its schema, its database) does not exist.
   * The guard asks it before wrapping a store failure in `StoreUnavailable`, so a store that was never migrated, or
   * looks in the wrong schema, is told apart from one that is down. Implementations: the SQL stores.
   */
  schemaError?(error: unknown): StoreSchemaMissing | null;

  /**
   * Stores `traceContext` (W3C trace context as JSON `{"traceparent","tracestate"}`) as the trace of the first
   * delivery of `key` that ran its handler, unless one is stored already; it goes when the receipt is purged. The
   * webhook intake calls it only when an OpenTelemetry SDK is registered. Optional: a store without it keeps none,
   * and a redelivery's span then carries no link to the first delivery. Implementations: the SQL stores (table
   * `payonce_receipt_trace`, migration 0018), the Redis store (a field of the receipt hash).
   * @see docs/observability.md "Propagation across hops".
   */
  recordReceiptTrace?(key: RequestKey, traceContext: string): Promise<void>;

  /** The trace context stored by `recordReceiptTrace` for `key`, or `null`. Optional, with it. */
  receiptTraceOf?(key: RequestKey): Promise<string | null>;
}

/**
 * A subscription to the finish of one receipt, made by `Store.watchReceipt`.
 * `changed` resolves (never rejects) when the receipt may have left `processing` — it was completed or failed —
 * or when the store can no longer tell (its listening connection was lost): either way the waiter reads the
 * receipt again. A wake is a hint, never a result.
 */
export interface ReceiptWatch {
  readonly changed: Promise<void>;
  /** Ends the subscription (the waiter stopped waiting); safe to call more than once. */
  close(): void;
}

/** A store that can run its steps inside a caller's open transaction of type `Tx`. */
export interface TransactionalStore<Tx> extends Store {
  readonly supportsTransactions: true;
  /** A view of this store whose statements run on `tx`; it commits or rolls back with the caller. */
  withTransaction(tx: Tx): Store;
  /**
   * Runs `work` in ONE new transaction on the store's own database and commits when it resolves (rolls back when
   * it throws). After a transient error of the backend (deadlock, lock wait timeout, SQLITE_BUSY) the WHOLE
   * transaction is run again, a few times with back-off, so `work` must only write to the database. The
   * one-commit modes of the guard, the webhook intake and the HTTP adapters open their transaction here.
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** The transaction type a store accepts in `runInTransaction`, or `never` for stores without transactions. */
export type TransactionOf<S extends Store> = S extends TransactionalStore<infer Tx> ? Tx : never;

/**
 * The transaction type a one-commit handler gets from a guard whose store type is `S`: `TransactionOf<S>` for a
 * known store type (`Transaction<DB>` of a SQL store, `never` for memory and Redis, which refuse the mode), and
 * `unknown` for the plain `Store` interface (a guard declared as `IdempotencyGuard`: any store, so any transaction;
 * told apart by its `supportsTransactions: boolean`, where every store class declares `true` or `false`). With
 * `unknown` the handler states its type (e.g. `context: TransactionalWebhookContext<Transaction<DB>>`) instead of
 * getting a `never` that fails only where `tx` is used.
 */
export type HandlerTransactionOf<S extends Store> = boolean extends S['supportsTransactions']
  ? unknown
  : TransactionOf<S>;
