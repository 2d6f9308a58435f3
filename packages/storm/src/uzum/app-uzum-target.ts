import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { appProviderTarget } from '../provider/app-provider-target.js';
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
 * in `params`; the rest is {@link appProviderTarget}'s (counts, crash, job re-run). The adapter stays open.
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
  const base = appProviderTarget(adapter, {
    prefix: 'storm-uzum',
    orderOf: (orderId, amountTiyin) => ({ params: { [param]: orderId }, amountTiyin }),
    idOf: (params: Readonly<Record<string, unknown>>) => String(params[param]),
  });
  const { login, password, serviceId } = credentials;
  return { ...base, merchantUrl: uzum.merchantUrl, login, password, serviceId };
}
