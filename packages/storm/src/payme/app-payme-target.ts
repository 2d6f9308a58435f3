import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { appProviderTarget } from '../provider/app-provider-target.js';
import type { PaymeStormTarget } from './payme-storm-target.js';

/**
 * The Payme storm target of an app through its storm adapter (docs/storm-your-app.md "Provider storms against your
 * app"): Payme calls `adapter.providers.payme.merchantUrl` with the cashbox `key`; an order is created with
 * `adapter.createOrder` (`UZS`, the amount in tiyin) and named `{ [accountField]: orderId }`; the rest is
 * {@link appProviderTarget}'s (counts, crash, job re-run). The adapter stays open (its maker closes it).
 * @throws {InvalidOption} (`adapter.providers.payme`) the adapter declares no Payme endpoint; (`key`) empty.
 */
export function appPaymeTarget(adapter: StormAppAdapter, key: string): PaymeStormTarget {
  const payme = adapter.providers?.payme;
  if (payme === undefined) throw new InvalidOption('adapter.providers.payme', 'the adapter declares no Payme endpoint');
  if (typeof key !== 'string' || key === '') throw new InvalidOption('key', 'must be non-empty');
  const field = payme.accountField ?? 'order_id';
  const base = appProviderTarget(adapter, {
    prefix: 'storm-payme',
    orderOf: (orderId, amount) => ({ account: { [field]: orderId }, amount }),
    idOf: (account: Readonly<Record<string, unknown>>) => String(account[field]),
  });
  return {
    ...base,
    merchantUrl: payme.merchantUrl,
    key,
    async readOrder(account) {
      const { heldTiyin: _held, ...counts } = await base.readOrder(account);
      return counts;
    },
  };
}
