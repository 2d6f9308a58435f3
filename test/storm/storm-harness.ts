import { randomBytes } from 'node:crypto';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import type { SandboxSigningScheme } from '../../packages/sandbox/src/webhook-signer.js';
import { createService, type PaymentService } from '../../packages/service/src/create-service.js';
import type { ServiceOverrides } from '../../packages/service/src/service-overrides.js';
import type { ServiceControl } from '../../packages/storm/src/service-control.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { STORM_SERVICE_TIMINGS } from './storm-service-timings.js';

export { STORM_SERVICE_TIMINGS };

/** A sandbox and an in-process reference service on a fresh SQLite file, wired to each other. */
export interface StormWorld {
  readonly sandbox: Sandbox;
  /** The running service (a new one after `serviceControl.crashAndRestart`). */
  readonly service: PaymentService;
  readonly adminToken: string;
  /**
   * Closes the in-process service and starts a new one on the same SQLite file and port: what the new service knows
   * is what the database kept (nothing of the old one's memory). For runStorm's
   * `serviceControl` (scenario 16's restart; scenario 12 needs a real process kill: test/storm/crash-scenario.test.ts).
   */
  readonly serviceControl: ServiceControl;
  close(): Promise<void>;
}

/**
 * Starts a sandbox (timeScale 0.001, Stripe signing unless `scheme` says otherwise) and `createService`
 * (optionally with `overrides`), the sandbox's webhooks going to the endpoint of that scheme.
 */
export async function startStormWorld(
  overrides?: ServiceOverrides,
  scheme: SandboxSigningScheme = 'stripe',
): Promise<StormWorld> {
  const sandbox = await createSandbox({ timeScale: 0.001, signing: { scheme }, serveSecrets: true });
  const secret = sandbox.controls.signing().secret;
  const ns = await createSqliteNamespace();
  const adminToken = randomBytes(24).toString('hex');
  const start = (port: number) =>
    createService({
      ...STORM_SERVICE_TIMINGS,
      port,
      logLevel: 'silent',
      databaseUrl: ns.path,
      providerUrl: sandbox.url,
      ...(scheme === 'stripe' ? { stripeWebhookSecrets: secret } : { standardWebhooksSecrets: secret }),
      adminToken,
      overrides,
    });
  let service: PaymentService;
  try {
    service = await start(0);
  } catch (error) {
    await sandbox.close();
    await ns.drop();
    throw error;
  }
  sandbox.controls.setWebhookUrl(`${service.url}/webhooks/${scheme}`);
  const serviceControl: ServiceControl = {
    async crashAndRestart() {
      const port = Number(new URL(service.url).port);
      await service.close();
      service = await start(port);
      return { oldPid: process.pid, newPid: process.pid };
    },
  };
  return {
    sandbox,
    get service() {
      return service;
    },
    adminToken,
    serviceControl,
    async close() {
      await sandbox.close();
      await service.close();
      await ns.drop();
    },
  };
}
