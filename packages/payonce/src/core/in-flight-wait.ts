import type { Receipt } from './receipt.js';
import type { RequestKey } from './request-key.js';
import type { ReceiptWatch, Store } from './store.js';

/** First polling interval on a store that cannot notify, in ms; it doubles up to `pollMaxMs`. */
const FIRST_POLL_MS = 10;
/** On a store that notifies, the receipt is still re-read this often (ms) in case a notification was lost. */
const NOTIFIED_RECHECK_MS = 1_000;

/** What `waitForFinish` needs: the store, the claim seen, the time left (real ms) and the caller's signal. */
export interface FinishWait {
  readonly store: Store;
  readonly key: RequestKey;
  /** The `processing` receipt the waiter met; any other status or attempt count ends the wait. */
  readonly seen: Receipt;
  /** Real time to wait at most, in ms (the caller's budget, already cut to the lease's remaining time). */
  readonly budgetMs: number;
  readonly pollMaxMs: number;
  readonly signal: AbortSignal | undefined;
}

/** How a wait ended: the receipt changed (read it again), the budget ran out, or the caller gave up. */
export type FinishWaitEnd = 'changed' | 'timeout' | 'aborted';

/** True when `current` is no longer the claim the waiter met (finished, retried, taken over or deleted). */
function moved(current: Receipt | null, seen: Receipt): boolean {
  return current === null || current.status !== 'processing' || current.attempts !== seen.attempts;
}

/** A promise that resolves after `ms`, or at once when `signal` aborts; `cancel` clears the timer. */
function pause(ms: number, signal: AbortSignal | undefined): { done: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    if (signal) {
      onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      if (signal && onAbort) signal.removeEventListener('abort', onAbort);
    },
  };
}

/** Subscribes when the store can notify; a failed subscription falls back to polling (never fails the wait). */
async function watchOf(store: Store, key: RequestKey): Promise<ReceiptWatch | null> {
  if (typeof store.watchReceipt !== 'function') return null;
  try {
    return await store.watchReceipt(key);
  } catch {
    return null;
  }
}

/**
 * Waits, bounded, for an in-flight claim held elsewhere to leave the `processing` state it was seen in. Never
 * claims and never runs anything: the caller claims again afterwards by the usual rules (replay a completed
 * receipt, retry a failed one, take over a stale one). Woken by the store when it notifies (subscribe first, then
 * read, so a finish between the two is not missed), else by polling `find` every 10 ms doubling to `pollMaxMs`.
 * A store error while reading ends the wait as `changed` so the caller's claim reports it as usual.
 * @see docs/design.md §3 "Waiting for an in-flight claim"; issue #15 (duplicates that wait for the first result).
 */
export async function waitForFinish(wait: FinishWait): Promise<FinishWaitEnd> {
  const { store, key, seen, signal } = wait;
  const until = performance.now() + wait.budgetMs;
  let pollMs = Math.min(FIRST_POLL_MS, wait.pollMaxMs);
  for (;;) {
    if (signal?.aborted) return 'aborted';
    const watch = await watchOf(store, key);
    try {
      let current: Receipt | null;
      try {
        current = await store.find(key);
      } catch {
        return 'changed';
      }
      if (moved(current, seen)) return 'changed';
      const left = until - performance.now();
      if (left <= 0) return 'timeout';
      const step = watch ? Math.max(NOTIFIED_RECHECK_MS, wait.pollMaxMs) : pollMs;
      const timer = pause(Math.min(left, step), signal);
      let woken = false;
      try {
        await (watch ? Promise.race([watch.changed.then(() => (woken = true)), timer.done]) : timer.done);
      } finally {
        timer.cancel();
      }
      // A wake is a hint: the caller's claim reads the receipt anyway (and waits again if nothing changed).
      if (woken) return 'changed';
      pollMs = Math.min(pollMs * 2, wait.pollMaxMs);
    } finally {
      watch?.close();
    }
  }
}
