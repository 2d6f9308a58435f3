import { firstClaimReceipt, type Receipt, type ReceiptStatus, type StoredResponse } from '../../core/receipt.js';
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

/** The waiters' id of a receipt: provider NUL externalId, unambiguous because a `RequestKey` part never contains NUL. */
const slot = (key: RequestKey): string => `${key.provider}\u0000${key.externalId}`;

/**
 * What the store keeps of one receipt: one mutable object of one shape, changed in place by every step, so a
 * finished receipt costs this object and its response, not a frozen copy per state. Callers only ever see
 * frozen `Receipt` snapshots of it (`snapshot`).
 */
class Entry {
  constructor(
    readonly key: RequestKey,
    public status: ReceiptStatus,
    public attempts: number,
    public claimedAtMs: number,
    public finishedAtMs: number | null,
    public fingerprint: string | null,
    public response: StoredResponse | null,
    public error: string | null,
  ) {}
}

/** A frozen snapshot of `entry`, with a fresh copy of its body, so a caller that mutates a replayed body cannot change the store. */
function snapshot(entry: Entry): Receipt {
  const stored = entry.response;
  const response =
    stored === null
      ? null
      : Object.freeze({ status: stored.status, headers: stored.headers, body: new Uint8Array(stored.body) });
  return Object.freeze({
    key: entry.key,
    status: entry.status,
    attempts: entry.attempts,
    claimedAtMs: entry.claimedAtMs,
    finishedAtMs: entry.finishedAtMs,
    fingerprint: entry.fingerprint,
    response,
    error: entry.error,
  });
}

/** A receipt finished before `beforeMs`, or a `processing` one whose last heartbeat is before `abandonedBeforeMs`. */
function purgeable(entry: Entry, beforeMs: number, abandonedBeforeMs: number): boolean {
  if (entry.status === 'processing') return entry.claimedAtMs < abandonedBeforeMs;
  return entry.finishedAtMs !== null && entry.finishedAtMs < beforeMs;
}

/**
 * Receipts in `Map`s of this process, by provider then external id (no composite key string is built or kept
 * per receipt). Every step is atomic because it runs synchronously between awaits.
 * For tests and single-process workers only: two processes never see each other's receipts.
 */
export class MemoryStore implements Store {
  readonly name = 'memory';
  readonly supportsTransactions = false;
  private readonly providers = new Map<string, Map<string, Entry>>();
  private readonly waiters = new ReceiptWaiters();

  async insertClaim({ key, nowMs, fingerprint }: InsertClaimRequest): Promise<InsertClaimResult> {
    let receipts = this.providers.get(key.provider);
    if (receipts === undefined) {
      receipts = new Map();
      this.providers.set(key.provider, receipts);
    }
    const existing = receipts.get(key.externalId);
    if (existing !== undefined) return { inserted: false, receipt: snapshot(existing) };
    receipts.set(key.externalId, new Entry(key, 'processing', 1, nowMs, null, fingerprint, null, null));
    return { inserted: true, receipt: firstClaimReceipt(key, nowMs, fingerprint) };
  }

  async takeover({ key, expectedStatus, expectedAttempts, nowMs }: TakeoverRequest): Promise<Receipt | null> {
    const entry = this.entryOf(key);
    if (entry === undefined || entry.status !== expectedStatus || entry.attempts !== expectedAttempts) return null;
    entry.status = 'processing';
    entry.attempts += 1;
    entry.claimedAtMs = nowMs;
    entry.finishedAtMs = null;
    entry.error = null;
    return snapshot(entry);
  }

  async complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    const { status, headers, body } = request.response;
    // Copy the body so later mutation of the caller's buffer cannot change what is replayed. Kept unfrozen: this
    // object never leaves the store (`snapshot` hands out frozen copies).
    const stored: StoredResponse = { status, headers, body: new Uint8Array(body) };
    return this.finish(request, 'completed', stored, null);
  }

  async fail(request: FinishRequest & { readonly error: string }): Promise<boolean> {
    return this.finish(request, 'failed', null, request.error);
  }

  /** The heartbeat: `claimedAtMs = nowMs` while the claim is held at `attempt`. @see `Store.renewClaim` */
  async renewClaim({ key, attempt, nowMs }: FinishRequest): Promise<boolean> {
    const entry = this.entryOf(key);
    if (entry?.status !== 'processing' || entry.attempts !== attempt) return false;
    entry.claimedAtMs = nowMs;
    return true;
  }

  async find(key: RequestKey): Promise<Receipt | null> {
    const entry = this.entryOf(key);
    return entry === undefined ? null : snapshot(entry);
  }

  /**
   * Subscribes to the finish of `key` in this process: `complete` and `fail` wake its waiters at once.
   * @see `Store.watchReceipt`.
   */
  async watchReceipt(key: RequestKey): Promise<ReceiptWatch> {
    return this.waiters.watch(slot(key));
  }

  /**
   * @see `Store.purgeBatch`: finished receipts before `beforeMs` and abandoned claims (last heartbeat before
   * `abandonedBeforeMs`); with `provider`, only receipts whose provider equals it are deleted.
   */
  async purgeBatch(beforeMs: number, limit: number, provider?: string, abandonedBeforeMs?: number): Promise<number> {
    const abandoned = abandonedBeforeMs ?? Number.NEGATIVE_INFINITY;
    let deleted = 0;
    for (const [name, receipts] of this.providers) {
      if (provider !== undefined && name !== provider) continue;
      for (const [externalId, entry] of receipts) {
        if (deleted >= limit) break;
        if (purgeable(entry, beforeMs, abandoned)) {
          receipts.delete(externalId);
          deleted++;
        }
      }
      // A provider with no receipts left keeps no map (provider names may be unbounded, e.g. one per tenant).
      if (receipts.size === 0) this.providers.delete(name);
      if (deleted >= limit) break;
    }
    return deleted;
  }

  private entryOf(key: RequestKey): Entry | undefined {
    return this.providers.get(key.provider)?.get(key.externalId);
  }

  private finish(
    { key, attempt, nowMs }: FinishRequest,
    status: 'completed' | 'failed',
    response: StoredResponse | null,
    error: string | null,
  ): boolean {
    const entry = this.entryOf(key);
    if (entry?.status !== 'processing' || entry.attempts !== attempt) return false;
    entry.status = status;
    entry.response = response;
    entry.error = error;
    entry.finishedAtMs = nowMs;
    if (this.waiters.watching) this.waiters.wake(slot(key));
    return true;
  }
}
