import { InvalidOption } from 'payonce/internal/core/errors.js';
import { serviceBaseUrl, serviceOrders } from '../provider/service-orders.js';
import type { ServiceControl } from '../service-control.js';
import type { UzumStormTarget } from './uzum-storm-target.js';

/** Options of {@link serviceUzumTarget}. */
export interface ServiceUzumTargetOptions {
  /** Base URL of the service; Uzum Bank calls `<service>/uzum/check`, `/create`, … */
  readonly service: string;
  /** The Basic login the service was started with (`payonce serve --uzum-login`). */
  readonly login: string;
  /** The Basic password (`--uzum-password`). */
  readonly password: string;
  /** The service id (`--uzum-service-id`). */
  readonly serviceId: number;
  /** The admin token of `/admin/*`; without it the job re-run scenario is skipped. */
  readonly adminToken?: string;
  /** How the crash scenario kills and restarts the service. @default pidKillControl(service) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, ms. @default 30_000 */
  readonly timeoutMs?: number;
}

/** An Uzum target that also owns an HTTP pool: close it when the storm is done. */
export interface ClosableUzumTarget extends UzumStormTarget {
  /** Closes the HTTP connections. */
  close(): Promise<void>;
}

/** The `params` key naming the service order (the reference service's `params.account`). */
const ORDER_PARAM = 'account';

/**
 * The Uzum storm target of a payonce reference service: Uzum Bank calls `POST <service>/uzum/<operation>`; orders
 * are created with `POST /orders` under a customer of the storm's own (`storm-uzum-<random>`), named in Uzum's
 * calls by `params: { account: <order id> }`, and read with `GET /orders/:id` (`paidTransitions`, `fulfilments`,
 * `order.refunded` jobs, the held money of its succeeded attempts less refunds). The crash scenario kills the
 * service by its `/healthz` pid (it needs a supervisor); the re-run needs `adminToken`.
 * @throws {InvalidOption} (`service`) not an http(s) URL; (`login`, `password`) empty; (`serviceId`) not a
 *   positive integer.
 * @see docs/service.md "Payme, Click and Uzum"; docs/storm.md "Uzum storm".
 */
export function serviceUzumTarget(options: ServiceUzumTargetOptions): ClosableUzumTarget {
  const service = serviceBaseUrl(options.service);
  for (const name of ['login', 'password'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') throw new InvalidOption(name, 'must be non-empty');
  }
  if (!Number.isSafeInteger(options.serviceId) || options.serviceId <= 0) {
    throw new InvalidOption('serviceId', 'must be a positive integer');
  }
  const orders = serviceOrders({ ...options, service, prefix: 'storm-uzum' });
  const orderOf = (params: Readonly<Record<string, unknown>>) => String(params[ORDER_PARAM]);
  const rerun = orders.rerunFulfilment;
  return {
    merchantUrl: `${service}/uzum`,
    login: options.login,
    password: options.password,
    serviceId: options.serviceId,
    description: `service ${service}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    async createOrder(amountTiyin) {
      return { params: { [ORDER_PARAM]: await orders.createOrder(amountTiyin) }, amountTiyin };
    },
    async readOrder(params) {
      const { heldMinor, ...counts } = await orders.counts(orderOf(params));
      return { ...counts, heldTiyin: heldMinor };
    },
    crashAndRestart: () => orders.crashAndRestart(),
    ...(rerun === undefined ? {} : { rerunFulfilment: (params) => rerun(orderOf(params)) }),
    close: () => orders.close(),
  };
}
