import { randomBytes } from 'node:crypto';
import type { HeldOrderCounts } from '../provider/storm-target-capabilities.js';
import { idText } from './adapter-ids.js';
import { hasCapability, type StormAppAdapter, type StormOrderStatus } from './storm-app-adapter.js';

/** Statuses in which the app holds the order's money. */
const HOLDING: ReadonlySet<StormOrderStatus> = new Set(['paid', 'fulfilling', 'completed']);

/**
 * The orders of an app as a provider storm (Payme, Click, Uzum, Telegram) drives them through its adapter: created in
 * one currency (UZS, XTR), read as counts, with the crash and re-run capabilities the adapter has (or why not, in
 * `missing`).
 */
export interface AppProviderOrders {
  /** The storm's customer of every call (`<prefix>-<random>`): the provider's own calls to the app use it too. */
  readonly customer: string;
  /**
   * Creates an order of `amount` minor units (tiyin, stars) and returns its id (a numeric one as its decimal
   * string). @throws {Error} the app gave no order id.
   */
  createOrder(amount: number): Promise<string>;
  /**
   * The order's counts from `readOrder`: paid transitions, fulfilments, refunds (0 when the app does not report
   * them) and the money held (`heldTiyin`, in the order's minor units): the order's amount while its status is
   * `paid`, `fulfilling` or `completed`, else 0.
   * @throws {Error} the order could not be read.
   */
  counts(orderId: string): Promise<HeldOrderCounts>;
  /** SIGKILLs the app and waits until it is back (`capabilities.crashAndRestart`; `--start` gives it). */
  readonly crashAndRestart?: () => Promise<{ note: string }>;
  /** Re-runs the order's `order.fulfil` job (`capabilities.jobs` and `rerunFulfilment`). */
  readonly rerunFulfilment?: (orderId: string) => Promise<{ note: string }>;
  /** Why `crashAndRestart` or `rerunFulfilment` is absent, for the skip reason. */
  readonly missing?: Readonly<{ crash?: string; rerun?: string }>;
}

/**
 * {@link AppProviderOrders} of `adapter` in `currency` (ISO 4217, or `XTR` for Telegram Stars), every call as one
 * customer of the storm's own (`<prefix>-<random>`).
 * @see docs/storm-your-app.md "Provider storms against your app".
 */
export function appProviderOrders(adapter: StormAppAdapter, prefix: string, currency = 'UZS'): AppProviderOrders {
  const customer = `${prefix}-${randomBytes(6).toString('hex')}`;
  const caps = adapter.capabilities ?? {};
  const crash = caps.crashAndRestart;
  const rerun = hasCapability(adapter, 'jobs') ? caps.rerunFulfilment : undefined;
  const missing = {
    ...(crash === undefined
      ? { crash: `the app adapter ${adapter.name} lacks crashAndRestart (payonce storm --start gives it)` }
      : {}),
    ...(rerun === undefined
      ? {
          rerun: `the app adapter ${adapter.name} lacks jobs and rerunFulfilment (readOrder's order.fulfil job, re-run)`,
        }
      : {}),
  };
  return {
    customer,
    ...(Object.keys(missing).length === 0 ? {} : { missing }),
    async createOrder(amount) {
      const answer = await adapter.createOrder({ customer, money: { amountMinor: amount, currency } });
      if (answer.orderId === null) {
        throw new Error(`createOrder answered ${answer.status} without an order id: ${answer.text.slice(0, 200)}`);
      }
      return idText(answer.orderId); // a numeric id (serial key) as its decimal string
    },
    async counts(orderId) {
      const state = await adapter.readOrder({ customer, orderId });
      return {
        paidTransitions: state.paidTransitions,
        fulfilments: state.fulfilments,
        refunds: state.refunds ?? 0,
        heldTiyin: HOLDING.has(state.status) ? state.amountMinor : 0,
      };
    },
    ...(crash === undefined
      ? {}
      : {
          async crashAndRestart() {
            const { oldPid, newPid } = await crash();
            return { note: `killed pid ${oldPid}, restarted as pid ${newPid}` };
          },
        }),
    ...(rerun === undefined
      ? {}
      : {
          async rerunFulfilment(orderId: string) {
            const job = (await adapter.readOrder({ customer, orderId })).jobs?.find((j) => j.topic === 'order.fulfil');
            if (job === undefined) throw new Error('the order has no order.fulfil job');
            const idempotencyKey = `${prefix}-${randomBytes(8).toString('hex')}`;
            const answer = await rerun({ customer, orderId, jobId: idText(job.id), idempotencyKey });
            return { note: `rerun of the ${job.status} fulfilment job: ${answer.status}` };
          },
        }),
  };
}
