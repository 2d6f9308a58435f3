import type { ReceiptWatch } from '../../core/store.js';
import { ReceiptWaiters } from '../receipt-waiters.js';
import { RECEIPT_FINISHED_CHANNEL } from '../sql/migrations/0009-receipts-finish-notify.js';

/** A notification as `pg` delivers it. */
interface PgNotification {
  readonly channel: string;
  readonly payload?: string | undefined;
}

/** The part of a `pg` `Client` the listener uses (one dedicated connection, never from the pool). */
export interface PgListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
}

/** The waiter id of a receipt key: the JSON array the trigger of migration 0009 sends, re-serialised. */
export function pgReceiptId(provider: string, externalId: string): string {
  return JSON.stringify([provider, externalId]);
}

/** The waiter id in a notification payload, or `null` for a payload that is not ours. */
function idOfPayload(payload: string | undefined): string | null {
  if (payload === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(payload);
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [provider, externalId] = parsed as unknown[];
    return typeof provider === 'string' && typeof externalId === 'string' ? pgReceiptId(provider, externalId) : null;
  } catch {
    return null;
  }
}

/**
 * One `LISTEN payonce_receipt_finished` connection per store, opened on the first wait and shared by every waiter
 * of the process (never one per waiter). The trigger of migration 0009 sends the finished receipt's key; the
 * listener wakes that key's waiters. A lost connection wakes every waiter (each re-reads its receipt) and the next
 * wait opens a new one.
 */
export class PgFinishListener {
  private readonly waiters = new ReceiptWaiters();
  private client: Promise<PgListenClient> | null = null;
  private closed = false;

  /**
   * @param channel the store's channel: `payonce_receipt_finished` under its table prefix (`billing_receipt_finished`
   *   for `tablePrefix: 'billing_'`), as migration 0009 made the trigger announce it.
   */
  constructor(
    private readonly newClient: () => Promise<PgListenClient>,
    private readonly channel: string = RECEIPT_FINISHED_CHANNEL,
  ) {}

  /** Number of open watches. */
  get watching(): number {
    return this.waiters.size;
  }

  /** A watch on `(provider, externalId)`, returned once the LISTEN is active. @throws the driver's error. */
  async watch(provider: string, externalId: string): Promise<ReceiptWatch> {
    if (this.closed) throw new Error('postgres: the store is closed');
    await this.listening();
    return this.waiters.watch(pgReceiptId(provider, externalId));
  }

  /** Ends the listening connection and wakes every waiter. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.waiters.wakeAll();
    if (client) await client.then((c) => c.end()).catch(() => {});
  }

  private listening(): Promise<PgListenClient> {
    if (this.client) return this.client;
    const opening: Promise<PgListenClient> = this.open(() => {
      if (this.client === opening) this.client = null;
    }).catch((error: unknown) => {
      if (this.client === opening) this.client = null;
      throw error;
    });
    this.client = opening;
    return opening;
  }

  private async open(forget: () => void): Promise<PgListenClient> {
    const client = await this.newClient();
    let lost = false;
    const onLost = (): void => {
      if (lost) return;
      lost = true;
      forget();
      this.waiters.wakeAll();
      client.end().catch(() => {});
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel !== this.channel) return;
      const id = idOfPayload(message.payload);
      if (id !== null) this.waiters.wake(id);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  }
}
