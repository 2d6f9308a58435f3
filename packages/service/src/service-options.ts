import type { Clock } from 'payonce/internal/core/clock.js';
import type { PaymentProvider } from 'payonce/internal/payments/payment-provider.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';
import type { Logger } from 'pino';
import type { ServiceSettings } from './service-config.js';
import type { ServiceOverrides } from './service-overrides.js';

/** Options of `createService` and `openServiceRuntime`: the settings of docs/service.md plus injected parts. */
export interface ServiceOptions extends ServiceSettings {
  /**
   * An open SQL store to use instead of opening `databaseUrl`; it is migrated on start and NOT closed by
   * `close()` (its owner closes it).
   */
  store?: SqlStore<unknown>;
  /** The payment provider. @default new SandboxClient({ baseUrl: providerUrl, timeoutMs: providerTimeoutMs }) */
  provider?: PaymentProvider;
  /** Time source for signature tolerance, receipts, payments and jobs (epoch ms UTC). @default systemClock */
  clock?: Clock;
  /** The pino logger. @default `createLogger` (redacting) at `logLevel`, writing to stderr */
  logger?: Logger;
  /** Level of the default logger (`silent` for none). @default 'info' */
  logLevel?: string;
  /** Replaces single steps of the service (tests, `payonce storm` variants). */
  overrides?: ServiceOverrides;
}
