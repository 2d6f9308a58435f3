import { firstClaimReceipt, type Receipt, type StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type {
  FinishRequest,
  InsertClaimRequest,
  InsertClaimResult,
  ReceiptWatch,
  Store,
  TakeoverRequest,
} from '../../core/store.js';
import { ReceiptWaiters } from '../receipt-waiters.js';

/** The Map key of a receipt: provider NUL externalId, unambiguous because a `RequestKey` part never contains NUL. */
const slot = (key: RequestKey): string => `${key.provider}\u0000${key.externalId}`;

/** The receipt with a fresh copy of its body, so a caller that mutates a replayed body cannot change the store. */
function copyOut(receipt: Receipt): Receipt {
  if (!receipt.response) return receipt;
  return Object.freeze({
    ...receipt,
    response: Object.freeze({ ...receipt.response, body: new Uint8Array(receipt.response.body) }),
  });
}

/**
 * Receipts in a `Map` of this process. Every step is atomic because it runs synchronously between awaits.
 * For tests and single-process workers only: two processes never see each other's receipts.
 */
export class MemoryStore implements Store {
  readonly name = 'memory';
  readonly supportsTransactions = false;
  private readonly receipts = new Map<string, Receipt>();
  private readonly waiters = new ReceiptWaiters();

  async insertClaim({ key, nowMs, fingerprint }: InsertClaimRequest): Promise<InsertClaimResult> {
    const id = slot(key);
    const existing = this.receipts.get(id);
    if (existing) return { inserted: false, receipt: copyOut(existing) };
    const receipt = firstClaimReceipt(key, nowMs, fingerprint);
    this.receipts.set(id, receipt);
    return { inserted: true, receipt };
  }

  async takeover({ key, expectedStatus, expectedAttempts, nowMs }: TakeoverRequest): Promise<Receipt | null> {
    const id = slot(key);
    const current = this.receipts.get(id);
    if (!current || current.status !== expectedStatus || current.attempts !== expectedAttempts) return null;
    const next: Receipt = Object.freeze({
      ...current,
      status: 'processing',
      attempts: current.attempts + 1,
      claimedAtMs: nowMs,
      finishedAtMs: null,
      error: null,
    });
    this.receipts.set(id, next);
    return next;
  }

  async complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    const { response } = request;
    // Copy the body so later mutation of the caller's buffer cannot change what is replayed.
    const stored: StoredResponse = Object.freeze({ ...response, body: new Uint8Array(response.body) });
    return this.finish(request, { status: 'completed', response: stored, error: null });
  }

  async fail(request: FinishRequest & { readonly error: string }): Promise<boolean> {
    return this.finish(request, { status: 'failed', response: null, error: request.error });
  }

  async find(key: RequestKey): Promise<Receipt | null> {
    const receipt = this.receipts.get(slot(key));
    return receipt ? copyOut(receipt) : null;
  }

  /**
   * Subscribes to the finish of `key` in this process: `complete` and `fail` wake its waiters at once.
   * @see `Store.watchReceipt`.
   */
  async watchReceipt(key: RequestKey): Promise<ReceiptWatch> {
    return this.waiters.watch(slot(key));
  }

  /** @see `Store.purgeBatch`: with `provider`, only receipts whose provider equals it are deleted. */
  async purgeBatch(beforeMs: number, limit: number, provider?: string): Promise<number> {
    let deleted = 0;
    for (const [id, receipt] of this.receipts) {
      if (deleted >= limit) break;
      if (provider !== undefined && receipt.key.provider !== provider) continue;
      if (receipt.status !== 'processing' && receipt.finishedAtMs !== null && receipt.finishedAtMs < beforeMs) {
        this.receipts.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  private finish(
    { key, attempt, nowMs }: FinishRequest,
    change: Pick<Receipt, 'status' | 'response' | 'error'>,
  ): boolean {
    const id = slot(key);
    const current = this.receipts.get(id);
    if (current?.status !== 'processing' || current.attempts !== attempt) return false;
    this.receipts.set(id, Object.freeze({ ...current, ...change, finishedAtMs: nowMs }));
    this.waiters.wake(id);
    return true;
  }
}
