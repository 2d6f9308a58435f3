/** How many idempotency keys the sandbox remembers as having had their `Payonce-Fault` applied. */
const MAX_KEYS = 100_000;

/**
 * Which idempotency keys already had their `Payonce-Fault` header applied. The official SDKs resend every header
 * on a retry, so a header fault applies once per idempotency key: the first request with a key gets it, the
 * retries with that key are served without it (a `drop-after-commit` then lets the SDK's retry get the stored
 * answer), unless the header also names `repeat`. Requests without a key get their header faults every time.
 * Keeps the newest {@link MAX_KEYS} keys (the oldest are forgotten first).
 */
export class HeaderFaultKeys {
  private readonly spent = new Set<string>();

  /**
   * Whether the header faults of a request with idempotency key `key` apply, and marks the key as spent when they
   * do. `null` key (a GET, or a POST without a key) or `repeat`: always true.
   */
  take(key: string | null, repeat: boolean): boolean {
    if (key === null || repeat) return true;
    if (this.spent.has(key)) return false;
    this.spent.add(key);
    if (this.spent.size > MAX_KEYS) {
      const oldest = this.spent.values().next();
      if (oldest.done !== true) this.spent.delete(oldest.value);
    }
    return true;
  }
}
