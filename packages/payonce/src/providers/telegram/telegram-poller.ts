import { RequestInProgress } from '../../core/errors.js';
import type { IdempotencyGuard } from '../../core/idempotency-guard.js';
import { MAX_TIMER_MS } from '../../core/options.js';
import type { HandlerTransactionOf, Store, TransactionOf } from '../../core/store.js';
import { isCommitted, runBatch, type TelegramUpdateOutcome } from './telegram-batch.js';
import { type GetUpdatesResult, TelegramBotApi } from './telegram-bot-api.js';
import { nextOffset } from './telegram-offset.js';
import { TelegramPollLease } from './telegram-poll-lease.js';
import {
  type ResolvedPollerOptions,
  resolvePollerOptions,
  type TelegramPollerOptions,
  type TelegramUpdateContext,
} from './telegram-poller-options.js';
import { type TelegramUpdate, telegramUpdateKey, telegramUpdateKind } from './telegram-update.js';

/** Typed events of a `TelegramPoller`; listeners that throw are ignored. */
export interface TelegramPollerEvents {
  /** One update went through its receipt: `applied` now, `duplicate` (done before), or not done (`error` if it threw). */
  update: { updateId: number; kind: string; outcome: TelegramUpdateOutcome; error: unknown };
  /** `getUpdates` or the store failed; the runner waits `delayMs` (a 429's `retry_after` when given) and goes on. */
  'poll-error': { status: number | null; description: string; delayMs: number };
  /** This runner took (`held: true`) or lost/released (`false`) the polling lease. */
  lease: { held: boolean };
  /** An offset was confirmed: the next `getUpdates` asks for updates from `offset` on. */
  offset: { offset: number };
}

type Listener<E extends keyof TelegramPollerEvents> = (payload: TelegramPollerEvents[E]) => void;

/**
 * Long polling of the Telegram Bot API, exactly once in effect: `getUpdates` → each update through its receipt
 * (`telegramUpdateKey`: the same key as the webhook) → the next `getUpdates` with `offset` = the lowest update not
 * committed (or last + 1), so Telegram forgets an update only after its receipt committed. Killed at any point, the
 * next runner gets the unconfirmed updates again from Telegram: the committed ones replay as duplicates (the handler
 * is not run), a half-done one (claim of a dead runner) is taken over after the guard's `leaseMs`, and the rest run.
 * With `transaction: true` an update's writes and its receipt are one commit, so no effect is applied twice or lost.
 * Replicas share the store: one holds the polling lease (`TelegramPollLease`) and calls `getUpdates`; the others wait
 * and take over `leaseMs` after it dies. Failures back off: 429 waits `retry_after`; 409 (another poller, or a
 * webhook is set), 5xx and network errors back off exponentially from `retryDelayMs` to `maxRetryDelayMs`.
 * @throws {InvalidOption} from the constructor: see `resolvePollerOptions`.
 * @throws {TransactionsUnsupported} from the constructor: `transaction: true` on a memory or Redis store.
 * @see docs/providers/telegram.md "Long polling"; https://core.telegram.org/bots/api#getupdates.
 * @example
 * const poller = new TelegramPoller({ guard, token: process.env.BOT_TOKEN!, transaction: true,
 *   handler: async (update, { tx }) => { await tx!.insertInto('seen').values({ id: update.update_id }).execute(); } });
 * poller.start();
 * process.on('SIGTERM', () => void poller.stop());
 */
export class TelegramPoller<S extends Store = Store> {
  readonly options: ResolvedPollerOptions;
  readonly #guard: IdempotencyGuard<S>;
  readonly #handler: TelegramPollerOptions<S>['handler'];
  readonly #api: TelegramBotApi;
  readonly #lease: TelegramPollLease;
  readonly #listeners = new Map<string, Set<(payload: never) => void>>();
  #offset: number | undefined;
  #failures = 0;
  #loop: Promise<void> | null = null;
  #stop = new AbortController();
  #fetch: AbortController | null = null;
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(options: TelegramPollerOptions<S>) {
    this.options = resolvePollerOptions(options as unknown as TelegramPollerOptions<Store>);
    this.#guard = options.guard;
    this.#handler = options.handler;
    this.#api = new TelegramBotApi(options);
    this.#lease = new TelegramPollLease(options.guard.store, this.options.botId, this.options.leaseMs);
  }

  /** The offset the next `getUpdates` sends (`undefined`: the earliest unconfirmed update). */
  get offset(): number | undefined {
    return this.#offset;
  }

  /** True while `start()`ed and not stopped. */
  get running(): boolean {
    return this.#loop !== null;
  }

  /** Subscribes to an event; returns an unsubscribe function. */
  on<E extends keyof TelegramPollerEvents>(name: E, listener: Listener<E>): () => void {
    const set = this.#listeners.get(name) ?? new Set();
    set.add(listener as (payload: never) => void);
    this.#listeners.set(name, set);
    return () => set.delete(listener as (payload: never) => void);
  }

  /** Starts polling in the background (idempotent). Errors never escape: they become `poll-error` events. */
  start(): void {
    if (this.#loop !== null) return;
    this.#stop = new AbortController();
    this.#loop = this.#run();
  }

  /**
   * Stops cleanly: aborts a `getUpdates` in flight, lets the updates already handed to handlers finish (each commits
   * or rolls back whole), hands the lease back so another replica takes it at once, and resolves. Idempotent.
   */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (loop === null) return;
    this.#stop.abort(new Error('poller stopped'));
    this.#fetch?.abort(this.#stop.signal.reason);
    await loop;
    this.#loop = null;
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stop.signal.aborted) await this.#turn();
    } finally {
      this.#stopHeartbeat();
      const held = this.#lease.held;
      await this.#lease.release(this.#now());
      if (held) this.#emit('lease', { held: false });
    }
  }

  /** One turn: make sure of the lease, fetch, apply, move the offset; every failure waits and returns. */
  async #turn(): Promise<void> {
    try {
      if (!(await this.#ensureLease())) return this.#sleep(Math.max(1, Math.floor(this.options.leaseMs / 3)));
      const fetch = new AbortController();
      this.#fetch = fetch;
      let result: GetUpdatesResult;
      try {
        result = await this.#api.getUpdates(this.#params(), fetch.signal);
      } finally {
        this.#fetch = null;
      }
      if (!this.#lease.held || this.#stop.signal.aborted) return;
      if (!result.ok) return this.#failed(result.status, result.description, result.retryAfterMs);
      await this.#apply(result.updates);
    } catch (error) {
      if (this.#stop.signal.aborted || !this.#lease.held) return; // an abort for a stop or a lost lease
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return this.#failed(null, text, null);
    }
  }

  async #ensureLease(): Promise<boolean> {
    if (this.#lease.held) return true;
    if (!(await this.#lease.acquire(this.#now()))) return false;
    this.#offset = undefined; // a new holder starts from Telegram's earliest unconfirmed update
    this.#emit('lease', { held: true });
    this.#startHeartbeat();
    return true;
  }

  #params() {
    const { limit, pollTimeoutSeconds, allowedUpdates } = this.options;
    return {
      ...(this.#offset === undefined ? {} : { offset: this.#offset }),
      limit,
      timeout: pollTimeoutSeconds,
      ...(allowedUpdates === undefined ? {} : { allowed_updates: allowedUpdates }),
    };
  }

  async #apply(updates: readonly TelegramUpdate[]): Promise<void> {
    const outcomes = await runBatch(updates, this.options, (update) => this.#applyOne(update));
    const committed = new Set([...outcomes].filter(([, outcome]) => isCommitted(outcome)).map(([id]) => id));
    const before = this.#offset;
    this.#offset = nextOffset(before, [...outcomes.keys()], committed);
    if (this.#offset !== undefined && this.#offset !== before) this.#emit('offset', { offset: this.#offset });
    if (committed.size < outcomes.size) return this.#sleep(this.#backoff(null));
    this.#failures = 0;
  }

  async #applyOne(update: TelegramUpdate): Promise<TelegramUpdateOutcome> {
    const key = telegramUpdateKey(this.options.botId, update.update_id);
    const run = async (context: TelegramUpdateContext<HandlerTransactionOf<S>>) => {
      await this.#handler(update, context);
    };
    let outcome: TelegramUpdateOutcome;
    let error: unknown = null;
    try {
      const done = this.options.transaction
        ? await this.#guard.runInNewTransaction(key, (tx: TransactionOf<S>, claim) =>
            run({ claim, tx: tx as HandlerTransactionOf<S> }),
          )
        : await this.#guard.run(key, (claim) => run({ claim, tx: null }));
      outcome = done.isReplay ? 'duplicate' : 'applied';
    } catch (thrown) {
      outcome = thrown instanceof RequestInProgress ? 'in-progress' : 'failed';
      error = thrown;
    }
    this.#emit('update', { updateId: update.update_id, kind: telegramUpdateKind(update), outcome, error });
    return outcome;
  }

  #failed(status: number | null, description: string, retryAfterMs: number | null): Promise<void> {
    const delayMs = this.#backoff(retryAfterMs);
    this.#emit('poll-error', { status, description, delayMs });
    return this.#sleep(delayMs);
  }

  /**
   * The pause after one more failure: a positive `retry_after` when Telegram gave one (at most `MAX_TIMER_MS`: a
   * longer timer fires at once, which would turn a huge `retry_after` into a busy loop), else exponential with jitter
   * (also for `retry_after: 0`, which would otherwise retry at once, again and again).
   */
  #backoff(retryAfterMs: number | null): number {
    this.#failures += 1;
    if (retryAfterMs !== null && retryAfterMs > 0) return Math.min(retryAfterMs, MAX_TIMER_MS);
    const { retryDelayMs, maxRetryDelayMs } = this.options;
    const ceiling = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** Math.min(this.#failures - 1, 30));
    return Math.max(1, Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
  }

  #startHeartbeat(): void {
    this.#stopHeartbeat();
    const every = Math.max(1, Math.floor(this.options.leaseMs / 3));
    this.#heartbeat = setInterval(() => {
      this.#lease.renew(this.#now()).then(
        (held) => {
          if (held) return;
          this.#stopHeartbeat();
          this.#fetch?.abort(new Error('polling lease lost'));
          this.#emit('lease', { held: false });
        },
        () => {}, // the store is down: try again next beat; a takeover meanwhile fails the next renew
      );
    }, every);
    this.#heartbeat.unref?.();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  #sleep(ms: number): Promise<void> {
    const signal = this.#stop.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #now(): number {
    return this.#guard.options.clock.now();
  }

  #emit<E extends keyof TelegramPollerEvents>(name: E, payload: TelegramPollerEvents[E]): void {
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        (listener as Listener<E>)(payload);
      } catch {
        // a listener's failure never stops the runner
      }
    }
  }
}
