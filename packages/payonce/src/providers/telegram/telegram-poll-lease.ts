import { InvalidOption } from '../../core/errors.js';
import { RequestKey } from '../../core/request-key.js';
import type { Store } from '../../core/store.js';

/** The `provider` of the polling lease's key (the lease is one receipt, apart from the updates' receipts). */
export const TELEGRAM_POLL_LEASE_PROVIDER = 'telegram-poller';

/**
 * The right to call `getUpdates` for one bot, held by one runner at a time across every process sharing the store,
 * built on the receipt store port (so it works on every store: memory, SQLite, PostgreSQL, MySQL, Redis): the lease
 * is the `processing` receipt `telegram-poller` / `<botId>`. Taking it is `insertClaim`; a holder that stopped
 * cleanly left it `failed`, which the next runner takes over at once; a holder that died stops renewing, and after
 * `leaseMs` without a heartbeat the receipt is stale and taken over (a compare-and-set on its attempt). The
 * attempt is the fencing token: a holder whose lease was taken over fails its next `renew` and stops polling.
 * The lease only keeps replicas from fighting over `getUpdates` (Telegram answers 409 to concurrent calls);
 * no update is applied twice even while two runners overlap, because each update has its own receipt.
 */
export class TelegramPollLease {
  readonly key: RequestKey;
  #attempt: number | null = null;

  /** @throws {InvalidOption} the store cannot renew a claim (`renewClaim`; every payonce store can). */
  constructor(
    private readonly store: Store,
    botId: string,
    private readonly leaseMs: number,
  ) {
    if (typeof store.renewClaim !== 'function') {
      throw new InvalidOption('guard.store', 'must renew claims (renewClaim) to hold a polling lease');
    }
    this.key = new RequestKey(TELEGRAM_POLL_LEASE_PROVIDER, botId);
  }

  /** True while this runner holds the lease (as far as it knows). */
  get held(): boolean {
    return this.#attempt !== null;
  }

  /** Takes the lease if it is free, released or stale; true when this runner now holds it. Store errors propagate. */
  async acquire(nowMs: number): Promise<boolean> {
    if (this.#attempt !== null) return true;
    const claimed = await this.store.insertClaim({ key: this.key, nowMs, fingerprint: null });
    if (claimed.inserted) {
      this.#attempt = claimed.receipt.attempts;
      return true;
    }
    const { receipt } = claimed;
    const stale = receipt.status === 'processing' && nowMs - receipt.claimedAtMs >= this.leaseMs;
    if (receipt.status !== 'failed' && !stale) return false;
    const taken = await this.store.takeover({
      key: this.key,
      expectedStatus: receipt.status === 'failed' ? 'failed' : 'processing',
      expectedAttempts: receipt.attempts,
      nowMs,
    });
    this.#attempt = taken?.attempts ?? null;
    return taken !== null;
  }

  /** The heartbeat; false (and no longer held) when another runner took the lease over. Store errors propagate. */
  async renew(nowMs: number): Promise<boolean> {
    const attempt = this.#attempt;
    if (attempt === null) return false;
    const renewed = (await this.store.renewClaim?.({ key: this.key, attempt, nowMs })) ?? false;
    if (!renewed && this.#attempt === attempt) this.#attempt = null;
    return renewed;
  }

  /** Hands the lease back (the receipt becomes `failed`, free for the next runner at once). Never throws. */
  async release(nowMs: number): Promise<void> {
    const attempt = this.#attempt;
    this.#attempt = null;
    if (attempt === null) return;
    await this.store.fail({ key: this.key, attempt, nowMs, error: 'polling lease released' }).catch(() => false);
  }

  /** Forgets the lease without touching the store (it was lost). */
  drop(): void {
    this.#attempt = null;
  }
}
