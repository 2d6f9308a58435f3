import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type ServiceOverrides } from '@payonce/service';
import { referenceServiceAdapter, type StormAppAdapter, type StormAppSetup } from '@payonce/storm';
import { STORM_SERVICE_TIMINGS } from '../storm-service-timings.js';

/**
 * What an adapter file for the reference service does when the app runs in the storm's own process: starts
 * `createService` on `setup.appUrl`'s port (a fresh SQLite file, compressed timings as test/storm/storm-harness.ts),
 * calling the storm's sandbox and verifying its webhook secret, and returns `referenceServiceAdapter` on it, whose
 * `close()` also stops the service and drops the file. Loaded through `payonce storm --adapter` (tsx), so it
 * imports the built packages, as a user's adapter would.
 */
export async function inProcessReferenceApp(
  setup: StormAppSetup,
  overrides?: ServiceOverrides,
): Promise<StormAppAdapter> {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-storm-adapter-'));
  const start = () =>
    createService({
      ...STORM_SERVICE_TIMINGS,
      port: Number(new URL(setup.appUrl).port),
      logLevel: 'silent',
      databaseUrl: join(dir, 'shop.sqlite'),
      providerUrl: setup.sandboxUrl,
      stripeWebhookSecrets: setup.webhookSecret,
      ...(overrides === undefined ? {} : { overrides }),
    });
  let service = await start();
  // It runs in the storm's own process, so it cannot be SIGKILLed: a restart closes it and starts a new service on
  // the same file and port, which knows only what the database kept (scenario 16's restart).
  const serviceControl = {
    async crashAndRestart() {
      await service.close();
      service = await start();
      return { oldPid: process.pid, newPid: process.pid };
    },
  };
  const adapter = referenceServiceAdapter({ target: service.url, serviceControl });
  return {
    ...adapter,
    name: overrides === undefined ? 'reference service (in process)' : 'reference service, signature check off',
    async close() {
      await adapter.close?.();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
