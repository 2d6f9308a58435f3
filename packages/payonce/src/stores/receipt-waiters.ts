import type { ReceiptWatch } from '../core/store.js';

/**
 * The in-process side of every store's `watchReceipt`: the waiters of each receipt by an id of the store's
 * choosing (e.g. `<provider length>:<provider>:<externalId>`). One notification source per store (an in-memory
 * call, one PostgreSQL `LISTEN` connection, one Redis subscriber) wakes any number of waiters; no waiter opens a
 * connection of its own.
 */
export class ReceiptWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Number of open watches (for tests and metrics). */
  get size(): number {
    let total = 0;
    for (const set of this.waiting.values()) total += set.size;
    return total;
  }

  /** True while any receipt has a waiter: a store may skip building ids to wake when nobody waits. */
  get watching(): boolean {
    return this.waiting.size > 0;
  }

  /** A watch on `id`, woken by `wake(id)` or `wakeAll()`. */
  watch(id: string): ReceiptWatch {
    let resolveChanged!: () => void;
    const changed = new Promise<void>((resolve) => {
      resolveChanged = resolve;
    });
    let set = this.waiting.get(id);
    if (!set) {
      set = new Set();
      this.waiting.set(id, set);
    }
    const entry = (): void => resolveChanged();
    set.add(entry);
    const close = (): void => {
      const current = this.waiting.get(id);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.waiting.delete(id);
    };
    return Object.freeze({ changed, close });
  }

  /** Wakes (and removes) every waiter of `id`. */
  wake(id: string): void {
    const set = this.waiting.get(id);
    if (!set) return;
    this.waiting.delete(id);
    for (const entry of set) entry();
  }

  /**
   * Wakes every waiter of every receipt: the notification source was lost (connection closed), so a finish may
   * have gone unseen; each waiter re-reads its receipt.
   */
  wakeAll(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const set of all) for (const entry of set) entry();
  }
}
