import type { SandboxUpdate } from '@payonce/sandbox/telegram';

/** Delivers one update to the bot's webhook as Telegram would (with the scenario's faults). */
export type UpdateDeliverer = (update: SandboxUpdate) => Promise<void>;

/** The Bot API the pump long-polls: the storm's Telegram sandbox and the bot token it accepts. */
export interface PumpApi {
  readonly url: string;
  readonly token: string;
}

/** The order an update is about: the invoice payload of a pre-checkout or a `successful_payment`, else `null`. */
export function orderIdOfUpdate(update: SandboxUpdate): string | null {
  const query = update.pre_checkout_query as { invoice_payload?: unknown } | undefined;
  const message = update.message as { successful_payment?: { invoice_payload?: unknown } } | undefined;
  const payload = query?.invoice_payload ?? message?.successful_payment?.invoice_payload;
  return typeof payload === 'string' ? payload : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Telegram's webhook side of the storm: long-polls the sandbox's `getUpdates` (the updates its simulated customer
 * makes: pre-checkouts and `successful_payment` messages) and hands each to the deliverer routed for its order (the
 * scenario's faults), or to `fallback`. Deliveries run concurrently; the pump never waits for one.
 */
export class TelegramUpdatePump {
  readonly #api: PumpApi;
  readonly #fallback: UpdateDeliverer;
  readonly #routes = new Map<string, UpdateDeliverer>();
  readonly #seen = new Map<string, SandboxUpdate[]>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(api: PumpApi, fallback: UpdateDeliverer) {
    this.#api = api;
    this.#fallback = fallback;
  }

  /** Starts polling (idempotent). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Routes the updates of `orderId` to `deliverer` from now on. */
  route(orderId: string, deliverer: UpdateDeliverer): void {
    this.#routes.set(orderId, deliverer);
  }

  /** The updates of `orderId` the pump has handed out so far, oldest first. */
  updatesOf(orderId: string): readonly SandboxUpdate[] {
    return [...(this.#seen.get(orderId) ?? [])];
  }

  /** Stops polling and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop?.catch(() => {});
    await Promise.allSettled([...this.#inFlight]);
  }

  async #run(): Promise<void> {
    let offset: number | undefined;
    while (!this.#abort.signal.aborted) {
      let batch: SandboxUpdate[] = [];
      try {
        const response = await fetch(`${this.#api.url}/bot${this.#api.token}/getUpdates`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ offset, timeout: 1, limit: 100 }),
          signal: this.#abort.signal,
        });
        const body = (await response.json()) as { ok?: boolean; result?: SandboxUpdate[] };
        batch = body.ok === true && Array.isArray(body.result) ? body.result : [];
      } catch {
        if (this.#abort.signal.aborted) return;
        await sleep(50);
      }
      for (const update of batch) {
        offset = Math.max(offset ?? 0, update.update_id + 1);
        this.#dispatch(update);
      }
    }
  }

  #dispatch(update: SandboxUpdate): void {
    const orderId = orderIdOfUpdate(update);
    if (orderId !== null) this.#seen.set(orderId, [...(this.#seen.get(orderId) ?? []), update]);
    const deliver = (orderId === null ? undefined : this.#routes.get(orderId)) ?? this.#fallback;
    const delivery = deliver(update).catch(() => {});
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }
}
