import { appProviderOrders } from '../app/app-provider-orders.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import type { HeldOrderCounts, StormTargetCapabilities } from './storm-target-capabilities.js';

/** How a provider names an app's order: the storm order it makes of the app's id, and the app's id back from a ref. */
export interface AppOrderNaming<Order, Ref> {
  /** The customer prefix of the storm's calls, e.g. `storm-payme`. */
  readonly prefix: string;
  /** The currency the orders are created in. @default 'UZS' */
  readonly currency?: string;
  /** The storm's order for the app's new order `orderId` of `amount` minor units. */
  orderOf(orderId: string, amount: number): Order;
  /** The app's order id named by `ref` (an account, a `merchant_trans_id`, `params`). */
  idOf(ref: Ref): string;
}

/** The part of every provider storm's target of an app that does not depend on the provider's protocol. */
export interface AppProviderTargetBase<Order, Ref> extends StormTargetCapabilities<Ref> {
  /** The storm's customer of every adapter call (for a provider's own calls to the app, e.g. Telegram's invoice). */
  readonly customer: string;
  /** Creates an order of `amount` minor units through `adapter.createOrder`. @throws {Error} no order id came back. */
  createOrder(amount: number): Promise<Order>;
  /** The order's counts through `adapter.readOrder` (held money: its amount while paid, fulfilling, completed). */
  readOrder(ref: Ref): Promise<HeldOrderCounts>;
}

/**
 * The provider-independent part of a provider storm's target of an app through its storm adapter
 * (docs/storm-your-app.md "Provider storms against your app"): the description `app <name>`, orders created with
 * `adapter.createOrder` (in `naming.currency`) and named as the provider names them (`naming.orderOf`), their counts
 * read with `adapter.readOrder` (refunds 0 when the app does not report them), the crash (`capabilities.crashAndRestart`;
 * `payonce storm --start` gives it) and the job re-run (`capabilities.jobs` and `rerunFulfilment`), or why they are
 * missing. The adapter stays open (its maker closes it). A provider adds its endpoint and credentials.
 */
export function appProviderTarget<Order, Ref>(
  adapter: StormAppAdapter,
  naming: AppOrderNaming<Order, Ref>,
): AppProviderTargetBase<Order, Ref> {
  const orders = appProviderOrders(adapter, naming.prefix, naming.currency);
  const { crashAndRestart, rerunFulfilment } = orders;
  return {
    customer: orders.customer,
    description: `app ${adapter.name}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amount) {
      return naming.orderOf(await orders.createOrder(amount), amount);
    },
    readOrder: (ref) => orders.counts(naming.idOf(ref)),
    ...(crashAndRestart === undefined ? {} : { crashAndRestart }),
    ...(rerunFulfilment === undefined ? {} : { rerunFulfilment: (ref: Ref) => rerunFulfilment(naming.idOf(ref)) }),
  };
}
