import { InvalidOption } from 'payonce/internal/core/errors.js';
import { appProviderOrders } from '../app/app-provider-orders.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import type { UzumStormTarget } from './uzum-storm-target.js';

/** Options of {@link appUzumTarget}: the credentials the app was given. */
export interface AppUzumCredentials {
  /** The Basic login (`PAYONCE_STORM_UZUM_LOGIN`). */
  readonly login: string;
  /** The Basic password (`PAYONCE_STORM_UZUM_PASSWORD`). */
  readonly password: string;
  /** The service id (`PAYONCE_STORM_UZUM_SERVICE_ID`). */
  readonly serviceId: number;
}

/**
 * The Uzum storm target of an app through its storm adapter (docs/storm-your-app.md "Provider storms against your
 * app"): Uzum Bank posts to `adapter.providers.uzum.merchantUrl` + `/check`, `/create`, … with the Basic
 * credentials; an order is created with `adapter.createOrder` (`UZS`, tiyin) and named `{ [orderParam]: orderId }`
 * in `params`; its counts come from `adapter.readOrder` (refunds 0 when absent; the money held is the order's amount
 * while it is `paid`, `fulfilling` or `completed`). Crash and job re-run as for `appPaymeTarget`. The adapter stays
 * open.
 * @throws {InvalidOption} (`adapter.providers.uzum`) the adapter declares no Uzum endpoint; an empty login or
 *   password; a service id that is not a positive integer.
 */
export function appUzumTarget(adapter: StormAppAdapter, credentials: AppUzumCredentials): UzumStormTarget {
  const uzum = adapter.providers?.uzum;
  if (uzum === undefined) throw new InvalidOption('adapter.providers.uzum', 'the adapter declares no Uzum endpoint');
  for (const name of ['login', 'password'] as const) {
    if (typeof credentials[name] !== 'string' || credentials[name] === '') {
      throw new InvalidOption(name, 'must be non-empty');
    }
  }
  if (!Number.isSafeInteger(credentials.serviceId) || credentials.serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  const param = uzum.orderParam ?? 'account';
  const orders = appProviderOrders(adapter, 'storm-uzum');
  const orderOf = (params: Readonly<Record<string, unknown>>) => String(params[param]);
  const { crashAndRestart, rerunFulfilment } = orders;
  return {
    merchantUrl: uzum.merchantUrl,
    ...credentials,
    description: `app ${adapter.name}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amountTiyin) {
      return { params: { [param]: await orders.createOrder(amountTiyin) }, amountTiyin };
    },
    readOrder: (params) => orders.counts(orderOf(params)),
    ...(crashAndRestart === undefined ? {} : { crashAndRestart }),
    ...(rerunFulfilment === undefined ? {} : { rerunFulfilment: (params) => rerunFulfilment(orderOf(params)) }),
  };
}
