import type { TelegramFaults } from './telegram-faults.js';
import type { TelegramLedger } from './telegram-ledger.js';

/** One update as the sandbox serves it: `update_id` and one object field (`message`, `pre_checkout_query`, …). */
export interface SandboxUpdate {
  readonly update_id: number;
  readonly [kind: string]: unknown;
}

/** A webhook set with `setWebhook`. */
export interface SandboxWebhook {
  readonly url: string;
  readonly secretToken: string | null;
}

/** One webhook POST the sandbox made and the status it got (`null`: no answer). */
export interface WebhookDeliveryRecord {
  readonly updateId: number;
  readonly attempt: number;
  readonly status: number | null;
}

/** Options of {@link TelegramUpdateFeed}. */
export interface UpdateFeedOptions {
  readonly faults: TelegramFaults;
  readonly ledger: TelegramLedger;
  /** Pause before redelivering a webhook answered non-2xx, ms. @default 200 */
  readonly webhookRetryDelayMs?: number;
  /** Deliveries of one update before the sandbox gives up ("a reasonable number of attempts"). @default 10 */
  readonly webhookMaxAttempts?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The bot's updates as Telegram keeps them: sequential `update_id`s; long polling (`getUpdates`: every update below
 * `offset` is confirmed and forgotten, an empty queue waits up to `timeout` seconds), or, once `setWebhook` is
 * called, an HTTPS-style POST per update with the `X-Telegram-Bot-Api-Secret-Token` header, repeated while the
 * answer is not 2xx. Faults: duplicate updates, reversed batches.
 * @see https://core.telegram.org/bots/api#getupdates, #setwebhook; fixtures/providers/telegram/protocol.json.
 */
export class TelegramUpdateFeed {
  readonly deliveries: WebhookDeliveryRecord[] = [];
  #nextId = 100_000_001;
  #queue: SandboxUpdate[] = [];
  #waiters = new Set<() => void>();
  #webhook: SandboxWebhook | null = null;
  #delivering: Promise<void> = Promise.resolve();
  readonly #options: UpdateFeedOptions;

  constructor(options: UpdateFeedOptions) {
    this.#options = options;
  }

  /** The webhook set, or `null` (long polling). */
  get webhook(): SandboxWebhook | null {
    return this.#webhook;
  }

  /** Updates not confirmed (polling) or not delivered with a 2xx (webhook). */
  get pendingCount(): number {
    return this.#queue.length;
  }

  /** Adds an update of `kind` carrying `object` (twice with the `duplicate` fault); returns its id. */
  push(kind: string, object: unknown): number {
    const update: SandboxUpdate = { update_id: this.#nextId++, [kind]: object };
    this.#queue.push(update);
    if (this.#options.faults.duplicate) {
      this.#queue.push(update);
      this.#options.ledger.note('duplicate', `update ${update.update_id} queued twice`);
    }
    for (const wake of this.#waiters) wake();
    if (this.#webhook !== null) this.#deliverAll();
    return update.update_id;
  }

  /**
   * The next batch for `getUpdates`: confirms (drops) every update below `offset`, waits up to `timeoutSeconds` when
   * nothing is queued (or until `gone` resolves: the client left), then returns up to `limit` updates in `update_id`
   * order (reversed with the `reorder` fault). Updates stay queued until a later offset confirms them.
   */
  async next(
    offset: number | undefined,
    limit: number,
    timeoutSeconds: number,
    gone: Promise<void>,
  ): Promise<SandboxUpdate[]> {
    if (offset !== undefined) this.#queue = this.#queue.filter((u) => u.update_id >= offset);
    if (this.#queue.length === 0 && timeoutSeconds > 0) {
      let wake = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      this.#waiters.add(wake);
      await Promise.race([woken, gone, sleep(timeoutSeconds * 1000)]);
      this.#waiters.delete(wake);
    }
    const batch = [...this.#queue].sort((a, b) => a.update_id - b.update_id).slice(0, limit);
    if (this.#options.faults.reorder && batch.length > 1) {
      this.#options.ledger.note('reorder', `batch ${batch.map((u) => u.update_id).join(',')} served reversed`);
      return batch.reverse();
    }
    return batch;
  }

  /** `setWebhook`: from now on updates are POSTed to `url` (the queued ones too). */
  setWebhook(webhook: SandboxWebhook, dropPending: boolean): void {
    if (dropPending) this.#queue = [];
    this.#webhook = webhook;
    this.#deliverAll();
  }

  /** `deleteWebhook`: back to long polling; undelivered updates wait for `getUpdates` (or are dropped). */
  deleteWebhook(dropPending: boolean): void {
    if (dropPending) this.#queue = [];
    this.#webhook = null;
  }

  /** Resolves when every queued webhook delivery finished (delivered or given up). */
  idle(): Promise<void> {
    return this.#delivering;
  }

  #deliverAll(): void {
    this.#delivering = this.#delivering.then(async () => {
      while (this.#webhook !== null && this.#queue.length > 0) {
        const batch = [...this.#queue];
        if (this.#options.faults.reorder && batch.length > 1) batch.reverse();
        for (const update of batch) await this.#deliver(update);
      }
    });
  }

  /** POSTs one update until a 2xx (or the last attempt), then forgets it. */
  async #deliver(update: SandboxUpdate): Promise<void> {
    const max = this.#options.webhookMaxAttempts ?? 10;
    for (let attempt = 1; attempt <= max; attempt++) {
      const webhook = this.#webhook;
      if (webhook === null) return; // deleteWebhook meanwhile: getUpdates gets it
      const status = await post(webhook, update);
      this.deliveries.push(Object.freeze({ updateId: update.update_id, attempt, status }));
      if (status !== null && status >= 200 && status < 300) break;
      if (attempt < max) await sleep(this.#options.webhookRetryDelayMs ?? 200);
    }
    const at = this.#queue.indexOf(update);
    if (at !== -1) this.#queue.splice(at, 1);
  }
}

async function post(webhook: SandboxWebhook, update: SandboxUpdate): Promise<number | null> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (webhook.secretToken !== null) headers['x-telegram-bot-api-secret-token'] = webhook.secretToken;
  try {
    const response = await fetch(webhook.url, { method: 'POST', headers, body: JSON.stringify(update) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return null;
  }
}
