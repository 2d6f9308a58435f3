import { randomBytes } from 'node:crypto';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { hasCapability, type StormAppAdapter } from '../app/storm-app-adapter.js';
import type { StormAppPayme } from '../app/storm-app-providers.js';
import type { PaymeOrderCounts, PaymeStormOrder, PaymeStormTarget } from './payme-storm-target.js';

/** Options of {@link appPaymeTarget}. */
export interface AppPaymeTargetOptions {
  /** The cashbox key the app was given (`PAYONCE_STORM_PAYME_KEY`). */
  readonly key: string;
  /** The customer of every call, e.g. `storm-payme-<random>`. @default `storm-payme-` and 12 random hex digits */
  readonly customer?: string;
}

/**
 * The Payme storm target of an app through its storm adapter (docs/storm-your-app.md "Payme"): Payme calls
 * `adapter.providers.payme.merchantUrl`; an order is created with `adapter.createOrder` (`UZS`, the amount in tiyin)
 * and named `{ [accountField]: orderId }`; its counts come from `adapter.readOrder` (`refunds` 0 when the app does
 * not report them). The crash scenario uses `capabilities.crashAndRestart` (`payonce storm --start` gives it); the
 * job re-run scenario needs `capabilities.jobs` and `capabilities.rerunFulfilment`. The adapter stays open (its maker closes
 * it).
 * @throws {InvalidOption} (`adapter.providers.payme`) the adapter declares no Payme endpoint; (`key`) empty.
 */
export function appPaymeTarget(adapter: StormAppAdapter, options: AppPaymeTargetOptions): PaymeStormTarget {
  const payme: StormAppPayme | undefined = adapter.providers?.payme;
  if (payme === undefined) throw new InvalidOption('adapter.providers.payme', 'the adapter declares no Payme endpoint');
  if (typeof options.key !== 'string' || options.key === '') throw new InvalidOption('key', 'must be non-empty');
  const field = payme.accountField ?? 'order_id';
  const customer = options.customer ?? `storm-payme-${randomBytes(6).toString('hex')}`;
  const orderOf = (account: Readonly<Record<string, unknown>>) => String(account[field]);
  const caps = adapter.capabilities ?? {};
  const crash = caps.crashAndRestart;
  const rerun = caps.rerunFulfilment;
  const missing = {
    ...(crash === undefined
      ? { crash: `the app adapter ${adapter.name} lacks crashAndRestart (payonce storm --start gives it)` }
      : {}),
    ...(rerun === undefined || !hasCapability(adapter, 'jobs')
      ? {
          rerun: `the app adapter ${adapter.name} lacks jobs and rerunFulfilment (readOrder's order.fulfil job, re-run)`,
        }
      : {}),
  };
  return {
    merchantUrl: payme.merchantUrl,
    key: options.key,
    description: `app ${adapter.name}`,
    ...(Object.keys(missing).length === 0 ? {} : { missing }),
    async createOrder(amount: number): Promise<PaymeStormOrder> {
      const answer = await adapter.createOrder({ customer, money: { amountMinor: amount, currency: 'UZS' } });
      if (answer.orderId === null) {
        throw new Error(`createOrder answered ${answer.status} without an order id: ${answer.text.slice(0, 200)}`);
      }
      return { account: { [field]: answer.orderId }, amount };
    },
    async readOrder(account): Promise<PaymeOrderCounts> {
      const state = await adapter.readOrder({ customer, orderId: orderOf(account) });
      return { paidTransitions: state.paidTransitions, fulfilments: state.fulfilments, refunds: state.refunds ?? 0 };
    },
    ...(crash === undefined
      ? {}
      : {
          async crashAndRestart() {
            const { oldPid, newPid } = await crash();
            return { note: `killed pid ${oldPid}, restarted as pid ${newPid}` };
          },
        }),
    ...(rerun === undefined || missing.rerun !== undefined
      ? {}
      : {
          async rerunFulfilment(account) {
            const orderId = orderOf(account);
            const job = (await adapter.readOrder({ customer, orderId })).jobs?.find((j) => j.topic === 'order.fulfil');
            if (job === undefined) throw new Error('the order has no order.fulfil job');
            const idempotencyKey = `storm-payme-${randomBytes(8).toString('hex')}`;
            const answer = await rerun({ customer, orderId, jobId: job.id, idempotencyKey });
            return { note: `rerun of the ${job.status} fulfilment job: ${answer.status}` };
          },
        }),
  };
}
