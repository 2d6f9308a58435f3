import type { Logger } from 'pino';

/** First wait after a failed start-up step, ms; doubles per failure up to `MAX_DELAY_MS`. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

/**
 * Whether the service's database has answered once and been migrated (issue 34 item 19). `serve` and `worker`
 * start while the database is down: `start()` runs `prepare` (the migration, which is also the first connection)
 * again and again, waiting 250 ms doubling to 5 s between tries, each failure logged as a warning, until it
 * succeeds; then `ready` is true and `whenReady` resolves. Until then the service answers 503 `STORE_UNAVAILABLE`
 * with `Retry-After`, `/healthz` reports `starting`, and no background job runs. `close()` stops the retries.
 */
export class StoreReadiness {
  #ready = false;
  #closed = false;
  #attempt: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #resolve!: () => void;
  /** Resolves once the database answered and was migrated; never rejects (stays pending after `close()`). */
  readonly whenReady: Promise<void>;
  readonly #prepare: () => Promise<unknown>;
  readonly #logger: Logger;

  constructor(prepare: () => Promise<unknown>, logger: Logger) {
    this.#prepare = prepare;
    this.#logger = logger;
    this.whenReady = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** True once `prepare` succeeded. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Starts the tries (once); resolves when the FIRST try has settled, so a service whose database is up starts
   * ready, as before — or after `firstWaitMs` milliseconds when that try still hangs (a database that accepts TCP
   * and never answers), so the caller can listen and answer 503 meanwhile (issue 34 item H1); the tries go on.
   * Never rejects.
   */
  start(firstWaitMs = Number.POSITIVE_INFINITY): Promise<void> {
    let firstSettled!: () => void;
    const first = new Promise<void>((resolve) => {
      firstSettled = resolve;
    });
    this.#attempt ??= this.#run(firstSettled);
    if (!Number.isFinite(firstWaitMs)) return Promise.race([first, this.#attempt]);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, firstWaitMs);
    });
    return Promise.race([first, this.#attempt, waited]).finally(() => clearTimeout(timer));
  }

  /** Stops retrying; resolves when the try in flight, if any, has settled. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#attempt;
  }

  async #run(firstSettled: () => void): Promise<void> {
    for (let delayMs = FIRST_DELAY_MS; !this.#closed; delayMs = Math.min(MAX_DELAY_MS, delayMs * 2)) {
      try {
        await this.#prepare().finally(firstSettled);
        if (this.#closed) return;
        this.#ready = true;
        this.#resolve();
        return;
      } catch (error) {
        if (this.#closed) return;
        this.#logger.warn({ err: error, retryInMs: delayMs }, 'database unreachable or not migrated; retrying');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }
}
