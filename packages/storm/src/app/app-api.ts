import type { OrderView } from '../order-view.js';
import { type StormMoney, UnexpectedAnswer } from '../service-api.js';
import type { HttpAnswer, StormHttp } from '../storm-http.js';
import { ADAPTER_GRACE_MS, withinDeadline } from './adapter-deadline.js';
import { checkOrderState } from './order-state-check.js';
import type { AppOrderAnswer, AppPaymentAnswer, StormAppAdapter, StormOrderState } from './storm-app-adapter.js';

/** The order's state and effects in the shape the judge reads (fulfilment rows numbered, missing parts empty). */
export function toOrderView(orderId: string, state: StormOrderState): OrderView {
  return Object.freeze({
    order: Object.freeze({
      id: orderId,
      status: state.status,
      amountMinor: state.amountMinor,
      currency: state.currency,
      paidAttemptId: null,
    }),
    attempts: state.attempts ?? [],
    paidTransitions: state.paidTransitions,
    fulfilments: Array.from({ length: state.fulfilments }, (_, i) => ({ id: `fulfilment-${i + 1}`, jobId: null })),
    jobs: state.jobs ?? [],
    journal: state.journal ?? [],
    deliveries: state.deliveries ?? [],
  });
}

/**
 * What {@link AppApi} tells a listener after each call it made to the app (the storm's timeline): the operation,
 * the order it was about (`null` before the app named one), the Idempotency-Key sent, and the HTTP status answered
 * (`null` when the call threw: no answer).
 */
export interface AppCallRecord {
  readonly operation: 'create order' | 'start payment' | 'webhook';
  readonly orderId: string | null;
  readonly idempotencyKey: string | null;
  readonly status: number | null;
  /** For `webhook`: the URL it was posted to. */
  readonly url?: string;
  /** What went wrong when there was no answer. */
  readonly error?: string;
}

/**
 * The app under test as the scenarios call it: a {@link StormAppAdapter} with the customer first, the calls pinned
 * to one replica by `on(i)` (else the adapter picks), and crafted webhooks posted to the adapter's webhook URL.
 */
export class AppApi {
  /** One entry per replica (its base URL for the reference service); one entry for a single app. */
  readonly replicas: readonly string[];

  constructor(
    readonly adapter: StormAppAdapter,
    private readonly http: StormHttp,
    private readonly pinned?: number,
    private readonly listener?: (call: AppCallRecord) => void,
  ) {
    const replicas = adapter.capabilities?.replicas;
    this.replicas = Object.freeze(replicas !== undefined && replicas.length > 0 ? [...replicas] : [adapter.name]);
  }

  /** The same API with every call sent to replica `index` (modulo the replica count). */
  on(index: number): AppApi {
    return new AppApi(this.adapter, this.http, index % this.replicas.length, this.listener);
  }

  /** The same API with `listener` told about every create-order, start-payment and webhook call (and its answer). */
  observed(listener: (call: AppCallRecord) => void): AppApi {
    return new AppApi(this.adapter, this.http, this.pinned, listener);
  }

  private async told<T extends HttpAnswer>(
    call: Omit<AppCallRecord, 'status'>,
    send: () => Promise<T>,
    orderOf: (answer: T) => string | null = () => call.orderId,
  ): Promise<T> {
    if (this.listener === undefined) return send();
    try {
      const answer = await send();
      this.listener({ ...call, orderId: orderOf(answer), status: answer.status });
      return answer;
    } catch (error) {
      this.listener({ ...call, status: null, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  /** Creates an order (the adapter's `createOrder`). */
  createOrder(customer: string, money: StormMoney, idempotencyKey?: string): Promise<AppOrderAnswer> {
    return this.told(
      { operation: 'create order', orderId: null, idempotencyKey: idempotencyKey ?? null },
      () =>
        withinDeadline('createOrder', this.http.timeoutMs + ADAPTER_GRACE_MS, () =>
          this.adapter.createOrder({
            customer,
            money,
            replica: this.pinned,
            ...(idempotencyKey ? { idempotencyKey } : {}),
          }),
        ),
      (answer) => answer.orderId,
    );
  }

  /** Creates an order that must answer 201 with an id. @throws {UnexpectedAnswer} any other answer. */
  async expectOrder(customer: string, money: StormMoney, idempotencyKey?: string): Promise<string> {
    const answer = await this.createOrder(customer, money, idempotencyKey);
    if (answer.status !== 201 || answer.orderId === null) throw new UnexpectedAnswer('create order', answer);
    return answer.orderId;
  }

  /** Starts the order's payment with `idempotencyKey` (the adapter's `startPayment`). */
  checkout(customer: string, orderId: string, idempotencyKey: string): Promise<AppPaymentAnswer> {
    return this.told({ operation: 'start payment', orderId, idempotencyKey }, () =>
      withinDeadline('startPayment', this.http.timeoutMs + ADAPTER_GRACE_MS, () =>
        this.adapter.startPayment({ customer, orderId, idempotencyKey, replica: this.pinned }),
      ),
    );
  }

  /**
   * The order's state and effects as an `OrderView`.
   * @throws {InvalidOrderState} the adapter's `readOrder` returned a field the storm cannot judge.
   * @throws {AdapterCallTimeout} `readOrder` did not answer within the storm's per-call timeout.
   * @throws whatever the adapter's `readOrder` throws.
   */
  async orderView(customer: string, orderId: string): Promise<OrderView> {
    const state = await withinDeadline('readOrder', this.http.timeoutMs + ADAPTER_GRACE_MS, () =>
      this.adapter.readOrder({ customer, orderId, replica: this.pinned }),
    );
    return toOrderView(orderId, checkOrderState(orderId, state));
  }

  /** A raw webhook delivery to the adapter's webhook URL for `scheme` (exact body bytes, the given headers). */
  webhook(
    scheme: 'stripe' | 'standard-webhooks',
    headers: Record<string, string>,
    body: string,
    orderId: string | null = null,
  ): Promise<HttpAnswer> {
    const url = this.adapter.webhookUrl(scheme, this.pinned);
    return this.told({ operation: 'webhook', orderId, idempotencyKey: null, url }, () =>
      this.http.send({ method: 'POST', url, headers, body }),
    );
  }
}
