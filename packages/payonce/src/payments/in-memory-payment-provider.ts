import { randomUUID } from 'node:crypto';
import type {
  CreatePaymentRequest,
  PaymentProvider,
  ProviderPayment,
  ProviderPaymentStatus,
} from './payment-provider.js';
import { ProviderDeclined } from './provider-declined.js';

/**
 * What the next `createPayment` call does: `ok` creates (or returns the same payment for a known key), `decline`
 * throws `ProviderDeclined`, `timeout-after-create` creates the payment and then throws a timeout (the response
 * was lost), `timeout-before-create` throws a timeout without creating anything.
 */
export type CreateFault = 'ok' | 'decline' | 'timeout-after-create' | 'timeout-before-create';

/** Options of {@link InMemoryPaymentProvider}. */
export interface InMemoryPaymentProviderOptions {
  /** Provider name reported by `name`. @default 'fake' */
  name?: string;
  /** Status of a newly created payment. @default 'pending' */
  initialStatus?: ProviderPaymentStatus;
  /** Delay of every `createPayment` call in ms, so parallel callers overlap. @default 0 */
  createDelayMs?: number;
}

/** The timeout an `InMemoryPaymentProvider` throws for the `timeout-*` faults. */
export class FakeProviderTimeout extends Error {
  constructor() {
    super('fake provider: request timed out');
    this.name = 'FakeProviderTimeout';
  }
}

/**
 * A small in-memory `PaymentProvider` for tests and demos: idempotent creation by key (same key + same
 * parameters → same payment; different parameters → error), look-up by merchant reference, cancel, a call log,
 * and injectable faults for the next create calls (`failNextCreate`). Not durable, single process.
 * @example const provider = new InMemoryPaymentProvider(); provider.failNextCreate('timeout-after-create');
 */
export class InMemoryPaymentProvider implements PaymentProvider {
  readonly name: string;
  /** Every `createPayment` request received, in order (including failed ones). */
  readonly createCalls: CreatePaymentRequest[] = [];
  private readonly byKey = new Map<string, { request: CreatePaymentRequest; paymentId: string }>();
  private readonly payments = new Map<string, ProviderPayment>();
  private readonly faults: CreateFault[] = [];
  private readonly initialStatus: ProviderPaymentStatus;
  private readonly createDelayMs: number;

  constructor(options: InMemoryPaymentProviderOptions = {}) {
    this.name = options.name ?? 'fake';
    this.initialStatus = options.initialStatus ?? 'pending';
    this.createDelayMs = options.createDelayMs ?? 0;
  }

  /** Queues `fault` for the next `createPayment` call (faults are used in the order queued). */
  failNextCreate(fault: CreateFault): void {
    this.faults.push(fault);
  }

  async createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
    this.createCalls.push(request);
    if (this.createDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.createDelayMs));
    const fault = this.faults.shift() ?? 'ok';
    if (fault === 'decline') throw new ProviderDeclined('card_declined');
    if (fault === 'timeout-before-create') throw new FakeProviderTimeout();
    const known = this.byKey.get(request.idempotencyKey);
    let payment: ProviderPayment;
    if (known) {
      const same = JSON.stringify(known.request) === JSON.stringify(request);
      if (!same)
        throw new Error(`fake provider: idempotency key ${request.idempotencyKey} reused with other parameters`);
      payment = this.payments.get(known.paymentId)!;
    } else {
      payment = Object.freeze({
        paymentId: `pay_${randomUUID()}`,
        merchantReference: request.merchantReference,
        status: this.initialStatus,
        amountMinor: request.amountMinor,
        currency: request.currency,
        actionUrl:
          this.initialStatus === 'requires_action' ? `https://fake.example/pay/${request.merchantReference}` : null,
      });
      this.byKey.set(request.idempotencyKey, { request: { ...request }, paymentId: payment.paymentId });
      this.payments.set(payment.paymentId, payment);
    }
    if (fault === 'timeout-after-create') throw new FakeProviderTimeout();
    return payment;
  }

  async getPaymentByReference(merchantReference: string): Promise<ProviderPayment | null> {
    for (const payment of this.payments.values()) {
      if (payment.merchantReference === merchantReference) return payment;
    }
    return null;
  }

  async cancel(paymentId: string): Promise<ProviderPayment> {
    const payment = this.payments.get(paymentId);
    if (!payment) throw new Error(`fake provider: no payment ${paymentId}`);
    if (payment.status === 'succeeded' || payment.status === 'failed') return payment;
    return this.setStatus(paymentId, 'cancelled');
  }

  /** Changes a payment's status on the provider side (as a customer paying or a bank declining would). */
  setStatus(paymentId: string, status: ProviderPaymentStatus): ProviderPayment {
    const payment = this.payments.get(paymentId);
    if (!payment) throw new Error(`fake provider: no payment ${paymentId}`);
    const next = Object.freeze({ ...payment, status });
    this.payments.set(paymentId, next);
    return next;
  }

  /** The payment created for `merchantReference`, or `undefined` (test helper, no fault injection). */
  paymentFor(merchantReference: string): ProviderPayment | undefined {
    return [...this.payments.values()].find((payment) => payment.merchantReference === merchantReference);
  }
}
