import { InvalidOption } from 'payonce/internal/core/errors.js';
import { appProviderOrders } from '../app/app-provider-orders.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import type { PaymeStormTarget } from './payme-storm-target.js';

/**
 * The Payme storm target of an app through its storm adapter (docs/storm-your-app.md "Provider storms against your
 * app"): Payme calls `adapter.providers.payme.merchantUrl` with the cashbox `key`; an order is created with
 * `adapter.createOrder` (`UZS`, the amount in tiyin) and named `{ [accountField]: orderId }`; its counts come from
 * `adapter.readOrder` (`refunds` 0 when the app does not report them). The crash scenario uses
 * `capabilities.crashAndRestart` (`payonce storm --start` gives it); the job re-run scenario needs `capabilities.jobs`
 * and `capabilities.rerunFulfilment`. The adapter stays open (its maker closes it).
 * @throws {InvalidOption} (`adapter.providers.payme`) the adapter declares no Payme endpoint; (`key`) empty.
 */
export function appPaymeTarget(adapter: StormAppAdapter, key: string): PaymeStormTarget {
  const payme = adapter.providers?.payme;
  if (payme === undefined) throw new InvalidOption('adapter.providers.payme', 'the adapter declares no Payme endpoint');
  if (typeof key !== 'string' || key === '') throw new InvalidOption('key', 'must be non-empty');
  const field = payme.accountField ?? 'order_id';
  const orders = appProviderOrders(adapter, 'storm-payme');
  const orderOf = (account: Readonly<Record<string, unknown>>) => String(account[field]);
  const { crashAndRestart, rerunFulfilment } = orders;
  return {
    merchantUrl: payme.merchantUrl,
    key,
    description: `app ${adapter.name}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amount) {
      return { account: { [field]: await orders.createOrder(amount) }, amount };
    },
    async readOrder(account) {
      const { heldTiyin: _held, ...counts } = await orders.counts(orderOf(account));
      return counts;
    },
    ...(crashAndRestart === undefined ? {} : { crashAndRestart }),
    ...(rerunFulfilment === undefined ? {} : { rerunFulfilment: (account) => rerunFulfilment(orderOf(account)) }),
  };
}
