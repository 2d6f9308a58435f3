import type { RequestKey } from './request-key.js';

/**
 * Typed events the guard emits; `src/observe` listens (metrics, logs). Core never imports a metrics or
 * logging library. Durations are milliseconds.
 */
export interface GuardEvents {
  /** This call won a claim: a first delivery, a retry after `failed`, or a stale takeover. */
  'receipt:claimed': { key: RequestKey; attempt: number; takeover: boolean; retry: boolean };
  /** A completed receipt was replayed; `ageMs` is the time since it finished. */
  'receipt:replayed': { key: RequestKey; ageMs: number };
  /** A fresh claim is held elsewhere. */
  'receipt:in-progress': { key: RequestKey; retryAfterMs: number };
  'receipt:completed': { key: RequestKey; attempt: number; durationMs: number };
  'receipt:failed': { key: RequestKey; attempt: number; durationMs: number; error: string };
  /**
   * The handler finished but its claim had been taken over (or its heartbeat was refused: taken over or purged);
   * its result was not recorded.
   */
  'receipt:claim-lost': { key: RequestKey; attempt: number };
  'receipt:payload-mismatch': { key: RequestKey };
  /**
   * A heartbeat of a running claim could not be made (the store failed); the next beat tries again, and the claim
   * may be taken over if none succeeds within the lease. `error` is the store's message.
   */
  'receipt:heartbeat-failed': { key: RequestKey; attempt: number; error: string };
  /** A stored receipt has no (or an empty) fingerprint while the caller supplies one: `ReceiptCorrupted` is thrown. */
  'receipt:corrupted': { key: RequestKey; problem: 'fingerprint-missing' | 'fingerprint-empty' };
  /**
   * The store failed while recording a handler's failure: the receipt stays `processing` until its lease ends,
   * and the next delivery before then gets `RequestInProgress`. `error` is the store's message.
   */
  'receipt:fail-unrecorded': { key: RequestKey; attempt: number; error: string };
  /**
   * A duplicate waited (`waitForInFlightMs`) for a fresh claim held elsewhere: `waitedMs` of real time, and how the
   * wait ended — `changed` (the claim finished or moved: the call claims again, usually a replay), `timeout` (the
   * budget ran out: `RequestInProgress` follows) or `aborted` (the caller's signal).
   */
  'receipt:waited': { key: RequestKey; waitedMs: number; end: 'changed' | 'timeout' | 'aborted' };
  /**
   * payonce's tables are not where the store looks for them (`StoreSchemaMissing`: never migrated, or the store's
   * `schema` option names another schema). Emitted once per guard, the first time a store call meets it; every call
   * still throws it. `missing` is what the driver named (a table, schema or database), `schema` the store's `schema`
   * option, `message` says what to run (`payonce migrate --schema …`).
   */
  'store:schema-missing': { missing: string | null; schema: string | null; message: string };
}

/** The name of a guard event: `receipt:claimed`, `receipt:replayed`, … */
export type GuardEventName = keyof GuardEvents;
/** A listener of event `E`; it receives that event's payload. */
export type GuardListener<E extends GuardEventName> = (event: GuardEvents[E]) => void;

/** A minimal typed listener registry. A throwing (or rejecting async) listener never breaks the guard. */
export class GuardEmitter {
  private readonly listeners = new Map<GuardEventName, Set<(event: never) => void>>();

  /** Registers `listener`; returns a function that removes it. */
  on<E extends GuardEventName>(name: E, listener: GuardListener<E>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    return () => set.delete(listener as (event: never) => void);
  }

  /** True when `name` has at least one listener (so a caller can skip building an event nobody receives). */
  has(name: GuardEventName): boolean {
    // A guard nobody ever subscribed to (most) answers without a lookup on every delivery.
    return this.listeners.size > 0 && (this.listeners.get(name)?.size ?? 0) > 0;
  }

  emit<E extends GuardEventName>(name: E, event: GuardEvents[E]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of set) {
      try {
        const result: unknown = (listener as GuardListener<E>)(event);
        // An async listener that rejects must not become an unhandled rejection either.
        if (result instanceof Promise) result.catch(() => {});
      } catch {
        // Observers must not change the outcome of a delivery.
      }
    }
  }
}
