import { InvalidOption } from 'payonce/internal/core/errors.js';
import { serviceBaseUrl, serviceOrders } from '../provider/service-orders.js';
import type { ServiceControl } from '../service-control.js';
import type { ClickStormTarget } from './click-storm-target.js';

/** Options of {@link serviceClickTarget}. */
export interface ServiceClickTargetOptions {
  /** Base URL of the service; Click calls `<service>/click/prepare` and `<service>/click/complete`. */
  readonly service: string;
  /** The service id the service was started with (`payonce serve --click-service-id`). */
  readonly serviceId: number;
  /** The SECRET_KEY the service was started with (`--click-secret-key`). */
  readonly secretKey: string;
  /** The admin token of `/admin/*`; without it the job re-run scenario is skipped. */
  readonly adminToken?: string;
  /** How the crash scenario kills and restarts the service. @default pidKillControl(service) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, ms. @default 30_000 */
  readonly timeoutMs?: number;
}

/** A Click target that also owns an HTTP pool: close it when the storm is done. */
export interface ClosableClickTarget extends ClickStormTarget {
  /** Closes the HTTP connections. */
  close(): Promise<void>;
}

/**
 * The Click storm target of a payonce reference service: Click calls `POST <service>/click/prepare` and
 * `/click/complete`; orders are created with `POST /orders` under a customer of the storm's own
 * (`storm-click-<random>`), the order id being Click's `merchant_trans_id`, and read with `GET /orders/:id`
 * (`paidTransitions`, `fulfilments`, `order.refunded` jobs, the held money of its succeeded attempts). The crash
 * scenario kills the service by its `/healthz` pid (it needs a supervisor); the re-run needs `adminToken`.
 * @throws {InvalidOption} (`service`) not an http(s) URL; (`serviceId`) not a positive integer; (`secretKey`) empty.
 * @see docs/service.md "Payme, Click and Uzum"; docs/storm.md "Click storm".
 */
export function serviceClickTarget(options: ServiceClickTargetOptions): ClosableClickTarget {
  const service = serviceBaseUrl(options.service);
  if (!Number.isSafeInteger(options.serviceId) || options.serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  if (typeof options.secretKey !== 'string' || options.secretKey === '') {
    throw new InvalidOption('secretKey', 'must be non-empty');
  }
  const orders = serviceOrders({ ...options, service, prefix: 'storm-click' });
  return {
    prepareUrl: `${service}/click/prepare`,
    completeUrl: `${service}/click/complete`,
    serviceId: options.serviceId,
    secretKey: options.secretKey,
    description: `service ${service}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amountTiyin) {
      return { merchantTransId: await orders.createOrder(amountTiyin), amountTiyin };
    },
    async readOrder(merchantTransId) {
      const { heldMinor, ...counts } = await orders.counts(merchantTransId);
      return { ...counts, heldTiyin: heldMinor };
    },
    crashAndRestart: () => orders.crashAndRestart(),
    ...(orders.rerunFulfilment === undefined ? {} : { rerunFulfilment: orders.rerunFulfilment }),
    close: () => orders.close(),
  };
}
