import type { StormAppAdapter } from '@payonce/storm/internal/app/storm-app-adapter.js';
import { AppNotHealthy } from './app-not-healthy.js';
import type { AppProcess } from './app-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one health check came to: healthy, not yet (with the error), or the started app ended first. */
type Check =
  | { readonly kind: 'healthy' }
  | { readonly kind: 'not yet'; readonly error: unknown }
  | { readonly kind: 'ended' };

/**
 * Resolves when `adapter.health()` does (asked every 100 ms) and the app the storm started (`app`, `null` for an
 * app started by someone else) still runs: an answer while it had already ended came from another process on its
 * port (`appUrl`), not from it.
 * @throws {AppNotHealthy} the started app ended while the storm waited (at once, with how it ended and its last
 *   output lines: an `EADDRINUSE`, a driver's error), it had ended when the health check passed (another process
 *   answered), or it was not healthy within `budgetMs`.
 */
export async function waitHealthy(
  adapter: StormAppAdapter,
  app: AppProcess | null,
  budgetMs: number,
  appUrl: string,
): Promise<void> {
  const deadline = Date.now() + budgetMs;
  const ended = app === null ? new Promise<Check>(() => {}) : app.ended().then((): Check => ({ kind: 'ended' }));
  for (;;) {
    const left = Math.max(1, deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Check>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'not yet', error: new Error(`health() did not answer`) }), left);
    });
    const health = adapter.health().then(
      (): Check => ({ kind: 'healthy' }),
      (error: unknown): Check => ({ kind: 'not yet', error }),
    );
    const check = await Promise.race([health, ended, late]);
    clearTimeout(timer);
    if (check.kind === 'ended' || (check.kind === 'healthy' && app?.exited != null)) {
      const how = `the app (${app?.command}) ${app?.exited ?? 'ended'}`;
      const output = app?.output.describe() ?? '';
      if (check.kind === 'ended') throw new AppNotHealthy(`${how} before it was healthy; ${output}`);
      throw new AppNotHealthy(
        `something answered the health check at ${appUrl}, but not the app the storm started: ${how}. Another ` +
          `process listens on that port; ${output}`,
      );
    }
    if (check.kind === 'healthy') return;
    if (Date.now() >= deadline) {
      const why = check.error instanceof Error ? check.error.message : String(check.error);
      const tail = app === null ? '' : `; ${app.output.describe()}`;
      throw new AppNotHealthy(`the app was not healthy within ${budgetMs} ms: ${why}${tail}`, { cause: check.error });
    }
    await sleep(100);
  }
}
