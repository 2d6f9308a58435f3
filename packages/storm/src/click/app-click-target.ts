import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { appProviderTarget } from '../provider/app-provider-target.js';
import type { ClickStormTarget } from './click-storm-target.js';

/**
 * The Click storm target of an app through its storm adapter (docs/storm-your-app.md "Provider storms against your
 * app"): Click calls `adapter.providers.click.prepareUrl` and `completeUrl`, signing with `serviceId` and
 * `secretKey`; an order is created with `adapter.createOrder` (`UZS`, tiyin), its id being Click's
 * `merchant_trans_id`; the rest is {@link appProviderTarget}'s (counts, crash, job re-run). The adapter stays open.
 * @throws {InvalidOption} (`adapter.providers.click`) the adapter declares no Click endpoints; (`serviceId`) not a
 *   positive integer; (`secretKey`) empty.
 */
export function appClickTarget(adapter: StormAppAdapter, serviceId: number, secretKey: string): ClickStormTarget {
  const click = adapter.providers?.click;
  if (click === undefined)
    throw new InvalidOption('adapter.providers.click', 'the adapter declares no Click endpoints');
  if (!Number.isSafeInteger(serviceId) || serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  if (typeof secretKey !== 'string' || secretKey === '') throw new InvalidOption('secretKey', 'must be non-empty');
  const base = appProviderTarget(adapter, {
    prefix: 'storm-click',
    orderOf: (merchantTransId, amountTiyin) => ({ merchantTransId, amountTiyin }),
    idOf: (merchantTransId: string) => merchantTransId,
  });
  return { ...base, prepareUrl: click.prepareUrl, completeUrl: click.completeUrl, serviceId, secretKey };
}
