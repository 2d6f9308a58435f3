import type { StormAppAdapter } from '@payonce/storm/internal/app/storm-app-adapter.js';
import type { AppProcess } from './app-process.js';
import { waitHealthy } from './wait-healthy.js';

/**
 * `made` with `crashAndRestart` = SIGKILL the started app's process group, start the command again, wait until it
 * is healthy (unless the adapter has its own). Methods are delegated, so a class-based adapter keeps its `this`.
 * The kill is the storm's own: it is not reported as the app exiting.
 */
export function withRestart(
  made: StormAppAdapter,
  started: AppProcess,
  budgetMs: number,
  appUrl: string,
): StormAppAdapter {
  if (made.capabilities?.crashAndRestart !== undefined) return made;
  return {
    name: made.name,
    health: () => made.health(),
    webhookUrl: (scheme, replica) => made.webhookUrl(scheme, replica),
    createOrder: (call) => made.createOrder(call),
    startPayment: (call) => made.startPayment(call),
    readOrder: (call) => made.readOrder(call),
    capabilities: {
      ...made.capabilities,
      async crashAndRestart() {
        const oldPid = started.pid ?? 0;
        await started.kill();
        await started.start();
        await waitHealthy(made, started, budgetMs, appUrl);
        return { oldPid, newPid: started.pid ?? 0 };
      },
    },
    ...(made.providers === undefined ? {} : { providers: made.providers }),
    close: async () => {
      await made.close?.();
    },
  };
}
