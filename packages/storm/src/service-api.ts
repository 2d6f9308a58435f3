import { type OrderView, parseOrderView } from './order-view.js';
import type { HttpAnswer, StormHttp } from './storm-http.js';

/** The service answered a storm call with a status it should not have; the message quotes the answer. */
export class UnexpectedAnswer extends Error {
  constructor(
    readonly what: string,
    readonly answer: HttpAnswer,
  ) {
    super(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    this.name = 'UnexpectedAnswer';
  }
}

/** Money of an order: integer minor units and an ISO-4217 currency. */
export interface StormMoney {
  readonly amountMinor: number;
  readonly currency: string;
}

/**
 * The reference service's HTTP contract (docs/service.md) as the storm calls it. Every call names the customer
 * (`X-Customer-Id`, also the principal that scopes `Idempotency-Key`). Calls return the raw answer unless named
 * `…View`/`expect…`. With several replicas (base URLs of `payonce serve` processes on one database) every call goes
 * to the next replica in turn (round-robin, as a load balancer would); `on(i)` pins calls to one replica.
 */
export class ServiceApi {
  /** Base URLs of every replica, without a trailing slash (one entry for a single service). */
  readonly replicas: readonly string[];
  private turn = 0;

  constructor(
    private readonly http: StormHttp,
    /** Base URL of the service (or of each replica), without a trailing slash. */
    baseUrl: string | readonly string[],
    private readonly pinned: number | null = null,
  ) {
    this.replicas = Object.freeze(typeof baseUrl === 'string' ? [baseUrl] : [...baseUrl]);
    if (this.replicas.length === 0) throw new Error('ServiceApi needs at least one base URL');
  }

  /** The first replica's base URL (the service's, when there is one). */
  get baseUrl(): string {
    return this.replicas[this.pinned ?? 0]!;
  }

  /** The same API with every call sent to replica `index` (modulo the replica count). */
  on(index: number): ServiceApi {
    return new ServiceApi(this.http, this.replicas, index % this.replicas.length);
  }

  /** The base URL the next call goes to: the pinned replica, else the next one round-robin. */
  private next(): string {
    if (this.pinned !== null) return this.replicas[this.pinned]!;
    const url = this.replicas[this.turn % this.replicas.length]!;
    this.turn += 1;
    return url;
  }

  /** `POST /orders` with an optional `Idempotency-Key`. */
  createOrder(customer: string, money: StormMoney, idempotencyKey?: string): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'x-customer-id': customer };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return this.http.send({ method: 'POST', url: `${this.next()}/orders`, headers, body: money });
  }

  /** `POST /orders` that must answer 201; returns the order id. @throws {UnexpectedAnswer} any other answer. */
  async expectOrder(customer: string, money: StormMoney, idempotencyKey?: string): Promise<string> {
    const answer = await this.createOrder(customer, money, idempotencyKey);
    const id = orderIdOf(answer);
    if (answer.status !== 201 || id === null) throw new UnexpectedAnswer('POST /orders', answer);
    return id;
  }

  /** `POST /orders/:id/checkout` with `Idempotency-Key` (body `{}`). */
  checkout(customer: string, orderId: string, idempotencyKey: string): Promise<HttpAnswer> {
    return this.http.send({
      method: 'POST',
      url: `${this.next()}/orders/${encodeURIComponent(orderId)}/checkout`,
      headers: { 'x-customer-id': customer, 'idempotency-key': idempotencyKey },
      body: {},
    });
  }

  /** `GET /orders/:id`. */
  order(customer: string, orderId: string): Promise<HttpAnswer> {
    return this.http.send({
      method: 'GET',
      url: `${this.next()}/orders/${encodeURIComponent(orderId)}`,
      headers: { 'x-customer-id': customer },
    });
  }

  /**
   * `GET /orders/:id` parsed as an `OrderView`.
   * @throws {UnexpectedAnswer} not 200. @throws {OrderViewShapeError} not an OrderView.
   */
  async orderView(customer: string, orderId: string): Promise<OrderView> {
    const answer = await this.order(customer, orderId);
    if (answer.status !== 200) throw new UnexpectedAnswer(`GET /orders/${orderId}`, answer);
    return parseOrderView(answer.json);
  }

  /** `GET /healthz`. */
  healthz(): Promise<HttpAnswer> {
    return this.http.send({ method: 'GET', url: `${this.next()}/healthz` });
  }

  /**
   * The console's `POST /admin/api/jobs/:id/rerun` with `Authorization: Bearer <adminToken>` and the
   * `Idempotency-Key` `key` (docs/console.md): reruns a dead-lettered job, refuses any other 409 `JOB_NOT_DEAD`.
   */
  rerunJob(adminToken: string, jobId: string, key: string): Promise<HttpAnswer> {
    return this.http.send({
      method: 'POST',
      url: `${this.next()}/admin/api/jobs/${encodeURIComponent(jobId)}/rerun`,
      headers: { authorization: `Bearer ${adminToken}`, 'idempotency-key': key, 'x-operator': 'payonce-storm' },
      body: {},
    });
  }

  /** A raw webhook delivery to `POST /webhooks/<endpoint>` (exact body bytes, the given headers). */
  webhook(endpoint: 'stripe' | 'standard-webhooks', headers: Record<string, string>, body: string) {
    return this.http.send({ method: 'POST', url: `${this.next()}/webhooks/${endpoint}`, headers, body });
  }
}

/** The `order.id` of a `POST /orders` answer (`{ order }` or the order itself), or `null`. */
export function orderIdOf(answer: HttpAnswer): string | null {
  const json = answer.json as { order?: { id?: unknown }; id?: unknown } | null;
  const id = json?.order?.id ?? json?.id;
  return typeof id === 'string' ? id : null;
}

/** The `attempt.id` of a checkout answer, or `null` (already paid, error). */
export function attemptIdOf(answer: HttpAnswer): string | null {
  const json = answer.json as { attempt?: { id?: unknown } | null } | null;
  const id = json?.attempt?.id;
  return typeof id === 'string' ? id : null;
}

/** A field of the checkout answer's `attempt`, as text (e.g. `status`, `providerPaymentId`), or `null`. */
export function attemptFieldOf(answer: HttpAnswer, field: string): string | null {
  const json = answer.json as { attempt?: Record<string, unknown> | null } | null;
  const value = json?.attempt?.[field];
  return typeof value === 'string' ? value : null;
}

/** The checkout answer's `outcome` (`created`, `existing`, `already-paid`), or `null`. */
export function outcomeOf(answer: HttpAnswer): string | null {
  const outcome = (answer.json as { outcome?: unknown } | null)?.outcome;
  return typeof outcome === 'string' ? outcome : null;
}
