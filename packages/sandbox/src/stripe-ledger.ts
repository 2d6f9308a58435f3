import type { ActionContext } from './action-context.js';
import { EventLog, type EventLogSettings, type PendingEvent } from './event-log.js';
import { PaymentMethods } from './payment-methods.js';
import { type ResolvedPaymentPlan, resolvePaymentPlan } from './payment-plan.js';
import type { SandboxEvent } from './sandbox-event.js';
import type { SandboxCharge, SandboxPayment, SandboxRefund } from './sandbox-payment.js';
import { chargeObject, paymentIntentObject, refundObject } from './stripe-objects.js';
import type { EventDelivery } from './webhook-dispatcher.js';
import { type JsonObject, noSuch, type StripeApiError } from './wire/stripe-api-error.js';

/** What the engine needs from around it. */
export interface EngineSettings extends EventLogSettings {
  readonly baseUrl: () => string;
  readonly timeScale: number;
  /** Run-level knobs for new payments. */
  readonly defaults: () => ResolvedPaymentPlan;
}

/** An action's result: the object answered, or a `402 card_error` that still took effect (a decline). */
export type ActionResult =
  | { readonly ok: true; readonly object: JsonObject }
  | { readonly ok: false; readonly error: StripeApiError };

/**
 * The Stripe engine's state: its PaymentIntents, Charges and Refunds by id, the payments of each merchant
 * reference, and the event log every transition writes to. The actions on it are {@link StripeEngine}'s
 * (PaymentIntents) and {@link StripeRefunds}' (Refunds).
 */
export abstract class StripeLedger {
  readonly payments = new Map<string, SandboxPayment>();
  readonly charges = new Map<string, SandboxCharge>();
  readonly refunds = new Map<string, SandboxRefund>();
  protected readonly log: EventLog;
  protected readonly byReference = new Map<string, string[]>();
  protected readonly methods = new PaymentMethods();

  constructor(protected readonly settings: EngineSettings) {
    this.log = new EventLog(settings);
  }

  protected nowSec(): number {
    return Math.floor(this.settings.nowMs() / 1000);
  }

  /** The PaymentIntent object of `id`. @throws {StripeApiError} 404. */
  intentObject(id: string): JsonObject {
    return paymentIntentObject(this.payment(id), this.settings.baseUrl());
  }

  /** @throws {StripeApiError} 404 resource_missing. */
  payment(id: string): SandboxPayment {
    const payment = this.payments.get(id);
    if (payment === undefined) throw noSuch('payment_intent', id, 'intent');
    return payment;
  }

  /** @throws {StripeApiError} 404 resource_missing. */
  charge(id: string): SandboxCharge {
    const charge = this.charges.get(id);
    if (charge === undefined) throw noSuch('charge', id, 'charge');
    return charge;
  }

  /** @throws {StripeApiError} 404 resource_missing. */
  refund(id: string): SandboxRefund {
    const refund = this.refunds.get(id);
    if (refund === undefined) throw noSuch('refund', id, 'refund');
    return refund;
  }

  chargeObject(id: string): JsonObject {
    const charge = this.charge(id);
    return chargeObject(charge, this.refundsOfCharge(charge.id));
  }

  refundsOfCharge(chargeId: string): SandboxRefund[] {
    return [...this.refunds.values()].filter((r) => r.chargeId === chargeId);
  }

  /** PaymentIntent ids created with `metadata.merchant_reference = reference`, oldest first. */
  paymentIdsOf(reference: string): readonly string[] {
    return this.byReference.get(reference) ?? [];
  }

  /** Every event, oldest first. */
  get events(): readonly SandboxEvent[] {
    return this.log.events;
  }

  /** The deliveries an event went out as (for resends). */
  deliveriesOf(event: SandboxEvent): EventDelivery[] {
    return this.log.deliveriesOf(event);
  }

  protected update(payment: SandboxPayment, change: Partial<SandboxPayment>): SandboxPayment {
    const next = Object.freeze({ ...payment, ...change });
    this.payments.set(payment.id, next);
    return next;
  }

  protected updateCharge(charge: SandboxCharge, change: Partial<SandboxCharge>): SandboxCharge {
    const next = Object.freeze({ ...charge, ...change });
    this.charges.set(charge.id, next);
    return next;
  }

  protected planOf(payment: SandboxPayment, ctx: ActionContext): ResolvedPaymentPlan {
    return resolvePaymentPlan(payment.plan, ctx.explicit);
  }

  protected objectFor(type: string, payment: SandboxPayment, subjectId: string | null): JsonObject {
    if (type.startsWith('charge.')) return this.chargeObject(subjectId ?? payment.latestChargeId!);
    if (type.startsWith('refund.')) return refundObject(this.refund(subjectId!));
    return paymentIntentObject(payment, this.settings.baseUrl());
  }

  /** Records one event about `payment` (its object as a retrieve returns it now). */
  protected emit(type: string, payment: SandboxPayment, subjectId: string | null, ctx: ActionContext): PendingEvent {
    const object = this.objectFor(type, payment, subjectId);
    return this.log.emit(type, object, payment, this.planOf(payment, ctx).twoEventIds, ctx);
  }

  protected flush(batch: readonly PendingEvent[], plan: ResolvedPaymentPlan, ctx: ActionContext, wait = false) {
    return this.log.flush(batch, plan, ctx, wait);
  }
}
