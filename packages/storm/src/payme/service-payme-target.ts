import { InvalidOption } from 'payonce/internal/core/errors.js';
import { serviceBaseUrl, serviceOrders } from '../provider/service-orders.js';
import type { ServiceControl } from '../service-control.js';
import type { PaymeOrderCounts, PaymeStormOrder, PaymeStormTarget } from './payme-storm-target.js';

/** Options of {@link servicePaymeTarget}. */
export interface ServicePaymeTargetOptions {
  /** Base URL of the service (docs/service.md), e.g. `http://127.0.0.1:3000`; Payme calls `<service>/payme`. */
  readonly service: string;
  /** The cashbox key the service was started with (`payonce serve --payme-key`). */
  readonly key: string;
  /** The `account` field naming the order (`--payme-account-field`). @default 'order_id' */
  readonly accountField?: string;
  /** The admin token of `/admin/*`; without it the job re-run scenario is skipped. */
  readonly adminToken?: string;
  /** How the crash scenario kills and restarts the service. @default pidKillControl(service) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, ms. @default 30_000 */
  readonly timeoutMs?: number;
}

/** A Payme target that also owns an HTTP pool: close it when the storm is done. */
export interface ClosablePaymeTarget extends PaymeStormTarget {
  /** Closes the HTTP connections. */
  close(): Promise<void>;
}

/**
 * The Payme storm target of a payonce reference service (or any service speaking docs/service.md): Payme calls
 * `POST <service>/payme`; orders are created with `POST /orders { orderId, amountMinor, currency: "UZS" }` under a
 * customer of the storm's own (`X-Customer-Id: storm-payme-<random>`) and read with `GET /orders/:id`
 * (`paidTransitions`, `fulfilments`, refunds = its `order.refunded` jobs). The crash scenario kills the service
 * with `serviceControl` (it must run under a supervisor that restarts it, as for the Stripe storm's scenario 12); the
 * job re-run scenario asks `POST /admin/api/jobs/:id/rerun` (with `adminToken`). The service's clock cannot be
 * moved, so the 12-hour scenario sends an old `time`.
 * @throws {InvalidOption} (`service`) not an http(s) URL; (`key`) empty.
 * @see docs/service.md "Payme, Click and Uzum"; docs/storm.md "Payme storm".
 */
export function servicePaymeTarget(options: ServicePaymeTargetOptions): ClosablePaymeTarget {
  const service = serviceBaseUrl(options.service);
  if (typeof options.key !== 'string' || options.key === '') throw new InvalidOption('key', 'must be non-empty');
  const field = options.accountField ?? 'order_id';
  const orders = serviceOrders({ ...options, service, prefix: 'storm-payme' });
  const orderOf = (account: Readonly<Record<string, unknown>>) => String(account[field]);
  const rerun = orders.rerunFulfilment;
  return {
    merchantUrl: `${service}/payme`,
    key: options.key,
    description: `service ${service}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amount: number): Promise<PaymeStormOrder> {
      return { account: { [field]: await orders.createOrder(amount) }, amount };
    },
    async readOrder(account): Promise<PaymeOrderCounts> {
      const { paidTransitions, fulfilments, refunds } = await orders.counts(orderOf(account));
      return { paidTransitions, fulfilments, refunds };
    },
    crashAndRestart: () => orders.crashAndRestart(),
    ...(rerun === undefined ? {} : { rerunFulfilment: (account) => rerun(orderOf(account)) }),
    close: () => orders.close(),
  };
}
