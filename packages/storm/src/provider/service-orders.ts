import { randomBytes } from 'node:crypto';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { pidKillControl, type ServiceControl } from '../service-control.js';
import { type HttpAnswer, StormHttp } from '../storm-http.js';
import type { OrderCounts } from './order-rules.js';

/** Options of {@link serviceOrders}. */
export interface ServiceOrdersOptions {
  /** Base URL of the service (docs/service.md), e.g. `http://127.0.0.1:3000`. */
  readonly service: string;
  /** Prefix of the storm's customer and order ids, e.g. `storm-click`. */
  readonly prefix: string;
  /** The admin token of `/admin/*`; without it `rerunFulfilment` is absent (`missing.rerun` says why). */
  readonly adminToken?: string;
  /** How the crash scenario kills and restarts the service. @default pidKillControl(service) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, ms. @default 30_000 */
  readonly timeoutMs?: number;
  /** The currency of the orders it creates (`XTR` for the Telegram storm: whole stars). @default 'UZS' */
  readonly currency?: string;
}

/** What the service shows of one order: {@link OrderCounts} and the money it holds as paid. */
export interface ServiceOrderCounts extends OrderCounts {
  /**
   * Amounts of the order's succeeded attempts minus what was refunded of them, minor units (tiyin for UZS); 0 for
   * an order whose status is `refunded` (a full refund records no amount).
   */
  readonly heldMinor: number;
}

/** The orders of a payonce service as a provider storm drives them, with its crash and re-run capabilities. */
export interface ServiceOrders {
  /** The base URL, without a trailing slash. */
  readonly service: string;
  /** Creates an order of `amountMinor` (UZS: tiyin; XTR: stars) and returns its id. @throws {Error} refused. */
  createOrder(amountMinor: number): Promise<string>;
  /** The order's counts from `GET /orders/:id`. @throws {Error} the order could not be read. */
  counts(orderId: string): Promise<ServiceOrderCounts>;
  /** Kills the service (SIGKILL by its `/healthz` pid) and returns once a new process answers. */
  crashAndRestart(): Promise<{ note: string }>;
  /** Asks `POST /admin/api/jobs/:id/rerun` for the order's fulfilment job; absent without an admin token. */
  readonly rerunFulfilment?: (orderId: string) => Promise<{ note: string }>;
  /** Why `rerunFulfilment` is absent. */
  readonly missing?: Readonly<{ rerun?: string }>;
  /** POSTs `body` to `path` of the service as the storm's customer (a provider's own order routes). */
  post(path: string, body: unknown): Promise<HttpAnswer>;
  /** Closes the HTTP connections. */
  close(): Promise<void>;
}

interface ViewShape {
  readonly order?: { readonly status?: unknown };
  readonly paidTransitions?: unknown;
  readonly fulfilments?: unknown;
  readonly attempts?: readonly { readonly status?: unknown; readonly amountMinor?: unknown; refundedMinor?: unknown }[];
  readonly jobs?: readonly { readonly id?: unknown; readonly topic?: unknown; readonly status?: unknown }[];
}

/** `value` as a base URL without trailing slashes. @throws {InvalidOption} (`service`) not an http(s) URL. */
export function serviceBaseUrl(value: unknown): string {
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') return String(value).replace(/\/+$/, '');
  } catch {
    // fall through to the typed error
  }
  throw new InvalidOption('service', 'must be an http(s) URL');
}

function unexpected(what: string, answer: HttpAnswer): Error {
  return new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
}

const numberOr0 = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The orders of a payonce reference service (or any service speaking docs/service.md) for a provider storm: orders
 * are created with `POST /orders { orderId, amountMinor, currency: "UZS" }` under a customer of the storm's own
 * (`X-Customer-Id: <prefix>-<random>`) and read with `GET /orders/:id` (`paidTransitions`, `fulfilments`, refunds =
 * its `order.refunded` jobs, the held money from its succeeded attempts). The crash kills the service with
 * `serviceControl` (it must run under a supervisor that restarts it); the re-run asks
 * `POST /admin/api/jobs/:id/rerun` with the admin token.
 * @throws {InvalidOption} (`service`) not an http(s) URL.
 * @see docs/service.md "OrderView"; docs/storm.md "Payme storm", "Click storm", "Uzum storm".
 */
export function serviceOrders(options: ServiceOrdersOptions): ServiceOrders {
  const service = serviceBaseUrl(options.service);
  const http = new StormHttp(options.timeoutMs ?? 30_000);
  const headers = { 'x-customer-id': `${options.prefix}-${randomBytes(6).toString('hex')}` };
  const control = options.serviceControl ?? pidKillControl(service);
  const token = options.adminToken;

  /** POST `path` (under the service) as the storm's customer, with `body`. */
  const post = (path: string, body: unknown) => http.send({ method: 'POST', url: `${service}${path}`, headers, body });

  async function view(orderId: string): Promise<ViewShape> {
    const id = encodeURIComponent(orderId);
    const answer = await http.send({ method: 'GET', url: `${service}/orders/${id}`, headers });
    if (answer.status !== 200 || typeof answer.json !== 'object' || answer.json === null) {
      throw unexpected(`GET /orders/${id}`, answer);
    }
    return answer.json as ViewShape;
  }
  const jobsOf = (v: ViewShape, topic: string) => (v.jobs ?? []).filter((j) => j.topic === topic);

  const orders: ServiceOrders = {
    service,
    post,
    ...(token === undefined ? { missing: { rerun: 'needs the service admin token (--admin-token)' } } : {}),
    async createOrder(amountMinor) {
      const orderId = `${options.prefix}-${randomBytes(8).toString('hex')}`;
      const body = { orderId, amountMinor, currency: options.currency ?? 'UZS' };
      const answer = await http.send({ method: 'POST', url: `${service}/orders`, headers, body });
      if (answer.status !== 201) throw unexpected('POST /orders', answer);
      return orderId;
    },
    async counts(orderId) {
      const v = await view(orderId);
      const held = (v.attempts ?? []).filter((a) => a.status === 'succeeded');
      return {
        paidTransitions: numberOr0(v.paidTransitions),
        fulfilments: Array.isArray(v.fulfilments) ? v.fulfilments.length : 0,
        refunds: jobsOf(v, 'order.refunded').length,
        // A full refund carries no amount (`refundedMinor` stays 0): the order's status `refunded` says it.
        heldMinor:
          v.order?.status === 'refunded'
            ? 0
            : held.reduce((sum, a) => sum + numberOr0(a.amountMinor) - numberOr0(a.refundedMinor), 0),
      };
    },
    async crashAndRestart() {
      const { oldPid, newPid } = await control.crashAndRestart();
      return { note: `killed pid ${oldPid}, restarted as pid ${newPid}` };
    },
    close: () => http.close(),
  };
  if (token === undefined) return orders;
  return {
    ...orders,
    async rerunFulfilment(orderId) {
      const job = jobsOf(await view(orderId), 'order.fulfil')[0];
      if (job === undefined) throw new Error('the order has no order.fulfil job');
      const url = `${service}/admin/api/jobs/${encodeURIComponent(String(job.id))}/rerun`;
      const answer = await http.send({
        method: 'POST',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': `${options.prefix}-${randomBytes(8).toString('hex')}`,
        },
        body: {},
      });
      const code = (answer.json as { code?: unknown } | null)?.code;
      return { note: `rerun of the ${String(job.status)} fulfilment job: ${answer.status} ${String(code ?? '')}` };
    },
  };
}
