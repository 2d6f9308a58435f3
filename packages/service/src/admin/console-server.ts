import type { FastifyInstance } from 'fastify';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { PaymentProvider } from 'payonce/internal/payments/payment-provider.js';
import { noProvider } from '../no-provider.js';
import { serviceApp } from '../service-app.js';
import { ServiceError } from '../service-error.js';
import type { ServiceOptions } from '../service-options.js';
import { openServiceRuntime } from '../service-runtime.js';
import { webhookEndpoints } from '../webhook-endpoints.js';
import { registerAdminConsole, replayPartsOf } from './admin-console.js';

/** A running stand-alone console (`payonce console`). */
export interface ConsoleServer {
  readonly app: FastifyInstance;
  /** Base URL, e.g. `http://127.0.0.1:3100`; the console is at `<url>/console/`. */
  readonly url: string;
  /** Stops listening and closes the database. Idempotent. */
  close(): Promise<void>;
}

/** A provider for a console started without `--provider-url`: every call is refused (reconcile answers 409). */
const NO_PROVIDER: PaymentProvider = noProvider(
  () => new ServiceError('ADMIN_ACTION_UNAVAILABLE', 'no provider configured'),
);

/**
 * Starts the operator console on a database without a running service (docs/console.md "payonce console"): the
 * admin API and the web console only — no orders, checkout, webhooks, worker or reconciliation loop. The database
 * is migrated on start. Reconciling an attempt needs `providerUrl`; replaying deliveries needs the endpoints'
 * secrets (`stripeWebhookSecrets`, `standardWebhooksSecrets`), as for the service.
 * @throws {InvalidOption} no `adminToken`, or a bad setting.
 * @throws the driver's or fastify's error when the database or the port cannot be opened (all closed again).
 */
export async function startConsoleServer(options: ServiceOptions): Promise<ConsoleServer> {
  if (!options.adminToken) throw new InvalidOption('adminToken', 'is required (PAYONCE_ADMIN_TOKEN)');
  const providerAvailable = Boolean(options.provider || options.providerUrl);
  const runtime = await openServiceRuntime({
    ...options,
    worker: false,
    redisUrl: null,
    ...(providerAvailable ? {} : { provider: NO_PROVIDER }),
  });
  const ctx = runtime.context;
  const app = serviceApp(ctx);
  try {
    await registerAdminConsole(app, ctx, {
      adminToken: options.adminToken,
      replay: replayPartsOf(ctx, webhookEndpoints(ctx, options)),
      providerAvailable,
    });
    const url = await app.listen({ host: ctx.config.host, port: ctx.config.port });
    let closing: Promise<void> | null = null;
    return Object.freeze({
      app,
      url,
      close() {
        closing ??= (async () => {
          await app.close();
          await runtime.close();
        })();
        return closing;
      },
    });
  } catch (error) {
    await app.close().catch(() => {});
    await runtime.close();
    throw error;
  }
}
