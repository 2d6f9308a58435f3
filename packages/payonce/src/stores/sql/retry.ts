/** Tries per statement before a transient error is rethrown. */
const MAX_TRIES = 6;
/** First back-off in ms; doubles per try up to `MAX_DELAY_MS`, then jittered to 50–100 %. */
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one statement, retrying it after a transient error (deadlock, lock wait timeout, SQLITE_BUSY) with a
 * small jittered exponential back-off (5 ms doubling to 200 ms), `MAX_TRIES` times — and, with `budgetMs`, for
 * as long as `budgetMs` milliseconds have not passed since the first try. The waits are timers, never a
 * blocked event loop (SQLite stores opened by `SqliteStore.open` keep better-sqlite3's synchronous busy wait
 * short and wait here instead). Only for statements outside a caller's transaction: after a deadlock the server
 * has already rolled the caller's transaction back, so retrying one statement of it would be wrong (`retry` =
 * false rethrows at once).
 */
export async function withRetry<T>(
  run: () => Promise<T>,
  isTransient: (error: unknown) => boolean,
  retry: boolean,
  budgetMs = 0,
): Promise<T> {
  const started = budgetMs > 0 ? Date.now() : 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!retry || !isTransient(error)) throw error;
      if (attempt >= MAX_TRIES && (budgetMs <= 0 || Date.now() - started >= budgetMs)) throw error;
      const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
      await sleep(ceiling * (0.5 + Math.random() * 0.5));
    }
  }
}
