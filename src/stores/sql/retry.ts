/** Tries per statement before a transient error is rethrown. */
const MAX_TRIES = 6;
/** First back-off in ms; doubles per try up to `MAX_DELAY_MS`, then jittered to 50–100 %. */
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one statement, retrying it after a transient error (deadlock, lock wait timeout, SQLITE_BUSY) with a
 * small jittered exponential back-off, at most `MAX_TRIES` times. Only for statements outside a caller's
 * transaction: after a deadlock the server has already rolled the caller's transaction back, so retrying one
 * statement of it would be wrong (`retry` = false rethrows at once).
 */
export async function withRetry<T>(
  run: () => Promise<T>,
  isTransient: (error: unknown) => boolean,
  retry: boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!retry || attempt >= MAX_TRIES || !isTransient(error)) throw error;
      const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
      await sleep(ceiling * (0.5 + Math.random() * 0.5));
    }
  }
}
