import { randomBytes } from 'node:crypto';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { pidKillControl, type ServiceControl } from '../service-control.js';
import { type HttpAnswer, StormHttp } from '../storm-http.js';
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

interface ViewShape {
  readonly paidTransitions?: unknown;
  readonly fulfilments?: unknown;
  readonly jobs?: readonly { readonly id?: unknown; readonly topic?: unknown; readonly status?: unknown }[];
}

function baseUrl(value: unknown): string {
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
  const service = baseUrl(options.service);
  if (typeof options.key !== 'string' || options.key === '') throw new InvalidOption('key', 'must be non-empty');
  const field = options.accountField ?? 'order_id';
  const http = new StormHttp(options.timeoutMs ?? 30_000);
  const customer = `storm-payme-${randomBytes(6).toString('hex')}`;
  const headers = { 'x-customer-id': customer };
  const control = options.serviceControl ?? pidKillControl(service);
  const token = options.adminToken;

  async function view(account: Readonly<Record<string, unknown>>): Promise<ViewShape> {
    const id = encodeURIComponent(String(account[field]));
    const answer = await http.send({ method: 'GET', url: `${service}/orders/${id}`, headers });
    if (answer.status !== 200 || typeof answer.json !== 'object' || answer.json === null) {
      throw unexpected(`GET /orders/${id}`, answer);
    }
    return answer.json as ViewShape;
  }

  const jobsOf = (v: ViewShape, topic: string) => (v.jobs ?? []).filter((j) => j.topic === topic);

  const target: ClosablePaymeTarget = {
    merchantUrl: `${service}/payme`,
    key: options.key,
    description: `service ${service}`,
    ...(token === undefined ? { missing: { rerun: 'needs the service admin token (--admin-token)' } } : {}),
    async createOrder(amount: number): Promise<PaymeStormOrder> {
      const orderId = `storm-payme-${randomBytes(8).toString('hex')}`;
      const body = { orderId, amountMinor: amount, currency: 'UZS' };
      const answer = await http.send({ method: 'POST', url: `${service}/orders`, headers, body });
      if (answer.status !== 201) throw unexpected('POST /orders', answer);
      return { account: { [field]: orderId }, amount };
    },
    async readOrder(account): Promise<PaymeOrderCounts> {
      const v = await view(account);
      return {
        paidTransitions: typeof v.paidTransitions === 'number' ? v.paidTransitions : 0,
        fulfilments: Array.isArray(v.fulfilments) ? v.fulfilments.length : 0,
        refunds: jobsOf(v, 'order.refunded').length,
      };
    },
    async crashAndRestart() {
      const { oldPid, newPid } = await control.crashAndRestart();
      return { note: `killed pid ${oldPid}, restarted as pid ${newPid}` };
    },
    close: () => http.close(),
  };
  if (token !== undefined) {
    target.rerunFulfilment = async (account) => {
      const job = jobsOf(await view(account), 'order.fulfil')[0];
      if (job === undefined) throw new Error('the order has no order.fulfil job');
      const url = `${service}/admin/api/jobs/${encodeURIComponent(String(job.id))}/rerun`;
      const answer = await http.send({
        method: 'POST',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': `storm-payme-${randomBytes(8).toString('hex')}`,
        },
        body: {},
      });
      const code = (answer.json as { code?: unknown } | null)?.code;
      return { note: `rerun of the ${String(job.status)} fulfilment job: ${answer.status} ${String(code ?? '')}` };
    };
  }
  return target;
}
