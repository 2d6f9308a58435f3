// An adapter factory as a user's jest suite would write it: the reference service started in the test's process on
// `setup.appUrl`'s port (a fresh SQLite file, compressed timings), calling the storm's sandbox and verifying its
// webhook secret; `close()` stops the service and drops the file. Imports the built packages.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from '@payonce/service';
import { referenceServiceAdapter } from '@payonce/storm';

export async function referenceApp(setup) {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-storm-jest-'));
  const service = await createService({
    workerPollMs: 20,
    leaseMs: 1_500,
    retryBaseMs: 50,
    reconcileEveryMs: 100,
    reconcileAfterMs: 2_500,
    providerTimeoutMs: 2_000,
    fulfilDelayMs: 0,
    port: Number(new URL(setup.appUrl).port),
    logLevel: 'silent',
    databaseUrl: join(dir, 'shop.sqlite'),
    providerUrl: setup.sandboxUrl,
    stripeWebhookSecrets: setup.webhookSecret,
  });
  const adapter = referenceServiceAdapter({ target: service.url });
  return {
    ...adapter,
    name: 'reference service',
    async close() {
      await adapter.close?.();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
