import type { PayloadBytes } from './fingerprint.js';
import type { RequestKey } from './request-key.js';
import type { ResponseInit } from './response.js';

/** What a handler learns about the claim it runs under. */
export interface ClaimContext {
  readonly key: RequestKey;
  /** Fencing token: 1 for the first claim, higher after a retry or takeover. */
  readonly attempt: number;
  /** True when this claim took over a stale `processing` receipt (the previous worker may have done part of the work). */
  readonly takeover: boolean;
  /** True when this claim retries a `failed` receipt. */
  readonly retry: boolean;
}

/**
 * What a handler returns: the response to store (see `ResponseInit`), or nothing for an empty 200.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: lets `async () => { await work(); }` be a handler.
export type HandlerResult = Promise<ResponseInit | undefined | void> | ResponseInit | undefined | void;

/** A handler: does the work once and returns the response to store and replay. */
export type Handler = (context: ClaimContext) => HandlerResult;

/** A handler run inside the caller's transaction `tx`. */
export type TransactionHandler<Tx> = (tx: Tx, context: ClaimContext) => HandlerResult;

/** Per-call options of `run` and `runInTransaction`. */
export interface RunOptions {
  /** Raw payload bytes; their SHA-256 is stored with the first claim and compared on every later delivery. */
  payload?: PayloadBytes;
  /** A precomputed fingerprint (e.g. of method + route + body); used instead of `payload`. */
  fingerprint?: string;
  /**
   * How long (ms) this call waits for a fresh claim held elsewhere to finish before `RequestInProgress`; see
   * `GuardOptions.waitForInFlightMs`. @default the guard's `waitForInFlightMs` (0 = do not wait)
   */
  waitForInFlightMs?: number;
  /**
   * Aborting it (client gone, request cancelled) stops a wait for an in-flight claim at once: the call throws
   * `RequestInProgress`, as without a wait. It never interrupts a handler that is already running.
   */
  signal?: AbortSignal;
}

/** What `purge` deletes: receipts finished before a cut-off, optionally of one provider only. */
export interface PurgeOptions {
  /** The cut-off: a `Date` (absolute) or an age in milliseconds before now. */
  olderThan: Date | number;
  /**
   * Purge only this provider's receipts (`RequestKey.provider`, compared byte for byte); pass it whenever the
   * store is shared (HTTP keys and webhook receipts, or providers with different redelivery windows).
   * @default every provider's receipts
   */
  provider?: string;
}
