import type { PaymentPlan } from '@payonce/sandbox/internal/payment-plan.js';
import type { SandboxSigning } from '@payonce/sandbox/internal/webhook-signer.js';
import { SANDBOX_API_KEY } from '@payonce/sandbox/internal/wire/api-key.js';
import { encodeStripeForm } from '@payonce/sandbox/internal/wire/stripe-form.js';
import type { HttpAnswer, StormHttp } from './storm-http.js';

/** A delivery the sandbox sent, as `GET /_sandbox/deliveries` lists it (the fields the storm reads). */
export interface StormDelivery {
  readonly eventId: string;
  readonly sourceEventId: string;
  readonly eventType: string;
  readonly paymentId: string;
  readonly kind: string;
  /** The target's HTTP status, `null` when there was no answer. */
  readonly status: number | null;
}

/** A genuine event the sandbox emitted (`GET /_sandbox/events`). */
export interface StormEvent {
  readonly id: string;
  readonly type: string;
  readonly paymentId: string;
}

/** One succeeded charge of an order as the sandbox ledger shows it: the payment and what it took. */
export interface StormCharge {
  readonly paymentId: string;
  /** Integer minor units taken (captured, or authorised while a manual capture is pending). */
  readonly amountMinor: number;
  /** ISO-4217 as the sandbox holds it (upper case). */
  readonly currency: string;
}

/** `GET /_sandbox/charges?order_id=`: how many charges and refunds one order had, its payments, what each charge took. */
export interface StormOrderLedger {
  /** Succeeded charges of the order, across merchant references (a count). */
  readonly chargeCount: number;
  /** Refunds of the order (a count). */
  readonly refundCount: number;
  readonly paymentIds: readonly string[];
  /**
   * Amount and currency of each succeeded charge; fewer entries than `chargeCount` when the sandbox does not say
   * (one older than the field: the judge then fails the order rather than leave its amounts unchecked).
   */
  readonly charges: readonly StormCharge[];
}

/** The ledger's `charges` entries that carry a payment id, an integer amount and a currency; others are left out. */
function chargesOf(value: unknown): StormCharge[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    const c = item as Partial<Record<keyof StormCharge, unknown>> | null;
    if (typeof c?.paymentId !== 'string' || typeof c.currency !== 'string') return [];
    if (typeof c.amountMinor !== 'number' || !Number.isSafeInteger(c.amountMinor)) return [];
    return [{ paymentId: c.paymentId, amountMinor: c.amountMinor, currency: c.currency }];
  });
}

/** The sandbox answered a control call with an error status; the message quotes it. */
export class SandboxControlError extends Error {
  constructor(what: string, answer: HttpAnswer) {
    super(`sandbox ${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    this.name = 'SandboxControlError';
  }
}

/**
 * Sent on the storm's own `/v1` calls (its provider checks, its reads of a PaymentIntent): the sandbox's fault rules
 * (`payonce storm --faults`) are about the requests the APP makes and the deliveries it gets, so they neither strike
 * nor draw for these (docs/sandbox.md "Faults").
 */
export const SKIP_FAULT_RULES = Object.freeze({ 'sandbox-fault-rules': 'skip' });

function ok(what: string, answer: HttpAnswer): HttpAnswer {
  if (answer.status < 200 || answer.status >= 300) throw new SandboxControlError(what, answer);
  return answer;
}

function dataOf<T>(answer: HttpAnswer): T[] {
  const data = (answer.json as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? (data as T[]) : [];
}

/**
 * The sandbox provider over HTTP (docs/sandbox.md): its Stripe-shaped API under `/v1` and its controls under
 * `/_sandbox` (fault plans, ledgers, delivery log, signing, settle/refund, resend, idle).
 * @throws {SandboxControlError} a control call answered an error status.
 */
export class SandboxApi {
  constructor(
    private readonly http: StormHttp,
    /** Base URL of the sandbox, without a trailing slash. */
    readonly baseUrl: string,
  ) {}

  /** Arms `plan` for the next `times` create requests carrying `metadata.order_id = orderId`. */
  async plan(orderId: string, plan: PaymentPlan, times = 1): Promise<void> {
    ok(
      'POST /_sandbox/plans',
      await this.http.send({
        method: 'POST',
        url: `${this.baseUrl}/_sandbox/plans`,
        body: { match: { orderId }, plan, times },
      }),
    );
  }

  /** Charges, refunds and payments of one order id. */
  async orderLedger(orderId: string): Promise<StormOrderLedger> {
    const answer = ok(
      'GET /_sandbox/charges',
      await this.http.send({
        method: 'GET',
        url: `${this.baseUrl}/_sandbox/charges?order_id=${encodeURIComponent(orderId)}`,
      }),
    );
    const json = answer.json as (Partial<StormOrderLedger> & { charges?: unknown }) | null;
    return {
      chargeCount: json?.chargeCount ?? 0,
      refundCount: json?.refundCount ?? 0,
      paymentIds: Array.isArray(json?.paymentIds) ? json.paymentIds : [],
      charges: chargesOf(json?.charges),
    };
  }

  /** Payments made under one merchant reference (for the direct provider-key calls). */
  async referencePayments(merchantReference: string): Promise<readonly string[]> {
    const answer = ok(
      'GET /_sandbox/charges',
      await this.http.send({
        method: 'GET',
        url: `${this.baseUrl}/_sandbox/charges?merchant_reference=${encodeURIComponent(merchantReference)}`,
      }),
    );
    const ids = (answer.json as { paymentIds?: unknown } | null)?.paymentIds;
    return Array.isArray(ids) ? (ids as string[]) : [];
  }

  /** The delivery log of one payment, oldest first. */
  async deliveries(paymentId: string): Promise<StormDelivery[]> {
    const url = `${this.baseUrl}/_sandbox/deliveries?payment_id=${encodeURIComponent(paymentId)}`;
    return dataOf<StormDelivery>(ok('GET /_sandbox/deliveries', await this.http.send({ method: 'GET', url })));
  }

  /** Genuine events of one payment, oldest first. */
  async events(paymentId: string): Promise<StormEvent[]> {
    const url = `${this.baseUrl}/_sandbox/events?payment_id=${encodeURIComponent(paymentId)}`;
    return dataOf<StormEvent>(ok('GET /_sandbox/events', await this.http.send({ method: 'GET', url })));
  }

  /** The scheme and secret the sandbox signs new events with. */
  async signing(): Promise<SandboxSigning> {
    const answer = ok(
      'GET /_sandbox/signing',
      await this.http.send({ method: 'GET', url: `${this.baseUrl}/_sandbox/signing` }),
    );
    const json = answer.json as Partial<SandboxSigning> | null;
    if ((json?.scheme !== 'stripe' && json?.scheme !== 'standard-webhooks') || typeof json.secret !== 'string') {
      throw new SandboxControlError('GET /_sandbox/signing (no scheme and secret)', answer);
    }
    return { scheme: json.scheme, secret: json.secret };
  }

  /** Settles a held payment (`succeed` → a charge and its events; `decline`). Resolves after the first attempts. */
  async settle(paymentId: string, outcome: 'succeed' | 'decline' = 'succeed'): Promise<void> {
    const url = `${this.baseUrl}/_sandbox/payments/${encodeURIComponent(paymentId)}/settle`;
    ok('POST settle', await this.http.send({ method: 'POST', url, body: { outcome } }));
  }

  /** Fully refunds a succeeded payment (`charge.refunded`). */
  async refund(paymentId: string): Promise<void> {
    const url = `${this.baseUrl}/_sandbox/payments/${encodeURIComponent(paymentId)}/refund`;
    ok('POST refund', await this.http.send({ method: 'POST', url, body: {} }));
  }

  /** Sends `copies` more copies of a genuine event, `parallel` at a time; returns their delivery records. */
  async resend(eventId: string, copies: number, parallel: number): Promise<StormDelivery[]> {
    const url = `${this.baseUrl}/_sandbox/events/${encodeURIComponent(eventId)}/resend`;
    return dataOf<StormDelivery>(
      ok('POST resend', await this.http.send({ method: 'POST', url, body: { copies, parallel } })),
    );
  }

  /** The whole ledger (`GET /_sandbox/ledger`): payments, refunds, deliveries, faults and API requests, parsed JSON. */
  async ledger(): Promise<unknown> {
    return ok('GET /_sandbox/ledger', await this.http.send({ method: 'GET', url: `${this.baseUrl}/_sandbox/ledger` }))
      .json;
  }

  /** Restarts the sandbox's fault-rule draws with `seed`, keeping its rules (`POST /_sandbox/seed`). */
  async reseed(seed: number): Promise<void> {
    ok(
      'POST /_sandbox/seed',
      await this.http.send({ method: 'POST', url: `${this.baseUrl}/_sandbox/seed`, body: { seed } }),
    );
  }

  /** Waits until no settlement or delivery is pending in the sandbox (at most `timeoutMs`); true when idle. */
  async idle(timeoutMs: number): Promise<boolean> {
    const answer = ok(
      'POST /_sandbox/idle',
      await this.http.send({ method: 'POST', url: `${this.baseUrl}/_sandbox/idle`, body: { timeoutMs } }),
    );
    return (answer.json as { idle?: unknown } | null)?.idle === true;
  }

  /**
   * `POST /v1/payment_intents` directly (the provider-key scenarios) on Stripe's wire format (form body from
   * `encodeStripeForm`, `confirm=true`, the sandbox's test key), with an optional per-request plan; the sandbox's
   * fault rules skip it ({@link SKIP_FAULT_RULES}).
   */
  createPaymentIntent(
    body: { amount: number; currency: string; metadata: Record<string, string> },
    idempotencyKey: string,
    plan?: PaymentPlan,
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = {
      ...SKIP_FAULT_RULES,
      'idempotency-key': idempotencyKey,
      authorization: `Bearer ${SANDBOX_API_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (plan !== undefined) headers['sandbox-plan'] = JSON.stringify(plan);
    const form = encodeStripeForm({ ...body, confirm: true });
    return this.http.send({ method: 'POST', url: `${this.baseUrl}/v1/payment_intents`, headers, body: form });
  }

  /** `GET /v1/payment_intents/:id`: the PaymentIntent object (the sandbox's fault rules skip it). */
  async paymentIntent(paymentId: string): Promise<Record<string, unknown>> {
    const url = `${this.baseUrl}/v1/payment_intents/${encodeURIComponent(paymentId)}`;
    const headers = { ...SKIP_FAULT_RULES, authorization: `Bearer ${SANDBOX_API_KEY}` };
    const answer = ok('GET payment intent', await this.http.send({ method: 'GET', url, headers }));
    return answer.json as Record<string, unknown>;
  }
}
