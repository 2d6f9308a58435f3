import { type ActionContext, CONTROL_CONTEXT } from './action-context.js';
import { checkAmount, checkCurrency } from './currencies.js';
import { EventLog, type EventLogSettings, type PendingEvent } from './event-log.js';
import { type CardChoice, PaymentMethods } from './payment-methods.js';
import { type ResolvedPaymentPlan, resolvePaymentPlan } from './payment-plan.js';
import type { SandboxEvent } from './sandbox-event.js';
import type { SandboxCharge, SandboxPayment, SandboxRefund } from './sandbox-payment.js';
import { chargeObject, declineError, paymentIntentObject, refundObject, stripeId } from './stripe-objects.js';
import type { EventDelivery } from './webhook-dispatcher.js';
import { mergeMetadata, type Params } from './wire/params.js';
import { invalidParam, type JsonObject, noSuch, StripeApiError } from './wire/stripe-api-error.js';

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

const CREATE_PARAMS = [
  'amount',
  'currency',
  'metadata',
  'description',
  'confirm',
  'payment_method',
  'payment_method_data',
  'payment_method_types',
  'payment_method_options',
  'capture_method',
  'confirmation_method',
  'automatic_payment_methods',
  'customer',
  'receipt_email',
  'return_url',
  'off_session',
  'setup_future_usage',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'shipping',
  'expand',
  'use_stripe_sdk',
  'error_on_requires_action',
  'mandate_data',
  'transfer_group',
];
const UPDATE_PARAMS = [
  'amount',
  'currency',
  'metadata',
  'description',
  'payment_method',
  'payment_method_types',
  'payment_method_options',
  'capture_method',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'expand',
];
const CONFIRM_PARAMS = [
  'payment_method',
  'payment_method_data',
  'payment_method_options',
  'capture_method',
  'return_url',
  'off_session',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'expand',
  'use_stripe_sdk',
  'error_on_requires_action',
  'mandate_data',
];
const CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;
const CANCEL_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const CANCELABLE = new Set([
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
]);
const CONFIRMABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

function unexpectedState(payment: JsonObject, verb: string, hint = ''): StripeApiError {
  return new StripeApiError(
    400,
    'invalid_request_error',
    `You cannot ${verb} this PaymentIntent because it has a status of ${String(payment.status)}.${hint}`,
    { code: 'payment_intent_unexpected_state', payment_intent: payment },
  );
}

/**
 * The sandbox's Stripe state: PaymentIntents, Charges, Refunds and Events, with Stripe's state transitions, the
 * test-card outcomes and the events each transition emits (each event's `data.object` is the object as a
 * retrieve returns it at that moment). Routes call it with parsed parameters; it throws {@link StripeApiError}
 * for requests Stripe refuses and hands every event to the dispatcher for the endpoints that want it.
 * @see https://docs.stripe.com/payments/paymentintents/lifecycle; https://docs.stripe.com/api/events/types
 */
export class StripeEngine {
  readonly payments = new Map<string, SandboxPayment>();
  readonly charges = new Map<string, SandboxCharge>();
  readonly refunds = new Map<string, SandboxRefund>();
  private readonly log: EventLog;
  private readonly byReference = new Map<string, string[]>();
  private readonly methods = new PaymentMethods();

  constructor(private readonly settings: EngineSettings) {
    this.log = new EventLog(settings);
  }

  private nowSec(): number {
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

  private update(payment: SandboxPayment, change: Partial<SandboxPayment>): SandboxPayment {
    const next = Object.freeze({ ...payment, ...change });
    this.payments.set(payment.id, next);
    return next;
  }

  private updateCharge(charge: SandboxCharge, change: Partial<SandboxCharge>): SandboxCharge {
    const next = Object.freeze({ ...charge, ...change });
    this.charges.set(charge.id, next);
    return next;
  }

  private planOf(payment: SandboxPayment, ctx: ActionContext): ResolvedPaymentPlan {
    return resolvePaymentPlan(payment.plan, ctx.explicit);
  }

  // ---- PaymentIntents -------------------------------------------------------------------------------------------

  /**
   * `POST /v1/payment_intents`. With `confirm=true` it confirms at once: with a payment method (a test card) the
   * card decides synchronously as at Stripe; with none, the sandbox's asynchronous test method answers
   * `processing` and settles per plan. `plan` is the creating request's resolved knobs.
   * @throws {StripeApiError} 400 for bad parameters.
   */
  async createPaymentIntent(params: Params, plan: ResolvedPaymentPlan, ctx: ActionContext): Promise<ActionResult> {
    params.only(CREATE_PARAMS);
    const currency = checkCurrency(params.string('currency', 10));
    const amountParam = params.integer('amount', 0, Number.MAX_SAFE_INTEGER);
    if (amountParam === undefined) throw invalidParam('amount', 'Missing required param: amount.', 'parameter_missing');
    const metadata = mergeMetadata({}, params.metadata());
    const captureMethod = params.oneOf('capture_method', CAPTURE_METHODS) ?? 'automatic';
    const confirm = params.boolean('confirm') ?? false;
    const card = this.cardOf(params, null);
    // The asynchronous test method (plan flow) takes any positive amount, so ¥1 test orders work; cards
    // enforce Stripe's per-currency minimum.
    const amount = checkAmount(amountParam, currency, 'amount', !(confirm && card === null));
    const types = params.strings('payment_method_types') ?? ['card'];
    const nowSec = this.nowSec();
    const payment: SandboxPayment = Object.freeze({
      id: stripeId('pi'),
      merchantReference: metadata.merchant_reference ?? null,
      orderId: metadata.order_id ?? null,
      metadata: Object.freeze(metadata),
      description: params.string('description', 1_000) ?? null,
      amountMinor: amount,
      currency: currency.toUpperCase(),
      idempotencyKey: ctx.idempotencyKey,
      requestId: ctx.requestId ?? stripeId('req'),
      createdSec: nowSec,
      status: card === null ? 'requires_payment_method' : 'requires_confirmation',
      flow: confirm && card === null ? 'plan' : 'card',
      captureMethod,
      paymentMethod: card?.paymentMethod ?? null,
      paymentMethodTypes: Object.freeze(types),
      latestChargeId: null,
      amountCapturable: 0,
      amountReceived: 0,
      refundedMinor: 0,
      lastPaymentError: null,
      canceledSec: null,
      cancellationReason: null,
      plan,
    });
    this.payments.set(payment.id, payment);
    if (payment.merchantReference !== null) {
      const ids = this.byReference.get(payment.merchantReference) ?? [];
      ids.push(payment.id);
      this.byReference.set(payment.merchantReference, ids);
    }
    const batch = [this.emit('payment_intent.created', payment, null, ctx)];
    if (!confirm) {
      await this.flush(batch, plan, ctx);
      return { ok: true, object: this.intentObject(payment.id) };
    }
    return this.confirmPayment(payment, card, ctx, batch);
  }

  /** `POST /v1/payment_intents/:id` (amount, currency, metadata, description, payment method, capture method). */
  async updatePaymentIntent(id: string, params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(UPDATE_PARAMS);
    const payment = this.payment(id);
    const money =
      params.has('amount') || params.has('currency') || params.has('payment_method') || params.has('capture_method');
    if (money && !CONFIRMABLE.has(payment.status)) {
      throw unexpectedState(this.intentObject(id), 'update', ' Only metadata and description can change now.');
    }
    if (payment.status === 'canceled') throw unexpectedState(this.intentObject(id), 'update');
    const currency = params.has('currency')
      ? checkCurrency(params.string('currency', 10))
      : payment.currency.toLowerCase();
    const amount = params.integer('amount', 0, Number.MAX_SAFE_INTEGER);
    const card = this.cardOf(params, null);
    const metadata = mergeMetadata(payment.metadata, params.metadata());
    const next = this.update(payment, {
      amountMinor: checkAmount(amount ?? payment.amountMinor, currency, 'amount', payment.flow === 'card'),
      currency: currency.toUpperCase(),
      metadata: Object.freeze(metadata),
      description: params.has('description') ? (params.string('description', 1_000) ?? null) : payment.description,
      captureMethod: params.oneOf('capture_method', CAPTURE_METHODS) ?? payment.captureMethod,
      paymentMethod: card?.paymentMethod ?? payment.paymentMethod,
      paymentMethodTypes: Object.freeze(params.strings('payment_method_types') ?? [...payment.paymentMethodTypes]),
      status: card !== null && payment.status === 'requires_payment_method' ? 'requires_confirmation' : payment.status,
    });
    this.reindex(payment, next);
    await this.flush([], this.planOf(next, ctx), ctx);
    return { ok: true, object: this.intentObject(id) };
  }

  private reindex(before: SandboxPayment, after: SandboxPayment): void {
    const reference = after.metadata.merchant_reference ?? null;
    if (reference === before.merchantReference) return;
    this.update(after, { merchantReference: reference, orderId: after.metadata.order_id ?? null });
    if (reference !== null) this.byReference.set(reference, [...(this.byReference.get(reference) ?? []), after.id]);
  }

  /** `POST /v1/payment_intents/:id/confirm`. @throws {StripeApiError} 400 wrong state or no payment method. */
  async confirmPaymentIntent(id: string, params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(CONFIRM_PARAMS);
    let payment = this.payment(id);
    if (!CONFIRMABLE.has(payment.status)) throw unexpectedState(this.intentObject(id), 'confirm');
    const card = this.cardOf(params, payment.paymentMethod);
    if (card === null && payment.flow !== 'plan') {
      throw unexpectedState(
        this.intentObject(id),
        'confirm',
        ' It is missing a payment method: pass payment_method (e.g. pm_card_visa) or payment_method_data.',
      );
    }
    const captureMethod = params.oneOf('capture_method', CAPTURE_METHODS) ?? payment.captureMethod;
    payment = this.update(payment, { captureMethod, paymentMethod: card?.paymentMethod ?? payment.paymentMethod });
    return this.confirmPayment(payment, card, ctx, []);
  }

  /** The card a request names (`payment_method` or `payment_method_data`), else the one attached, else `null`. */
  private cardOf(params: Params, attached: string | null): CardChoice | null {
    const id = params.string('payment_method', 255);
    if (id !== undefined) return this.methods.byId(id);
    const data = params.object('payment_method_data');
    if (data !== undefined) return this.methods.fromData(data);
    return attached === null ? null : this.methods.byId(attached);
  }

  private async confirmPayment(
    payment: SandboxPayment,
    card: CardChoice | null,
    ctx: ActionContext,
    batch: PendingEvent[],
  ): Promise<ActionResult> {
    const plan = this.planOf(payment, ctx);
    const outcome = this.outcomeOf(payment, card, ctx);
    let current = payment;
    if (outcome.kind === 'decline') {
      current = this.decline(current, card, outcome, ctx, batch);
      await this.flush(batch, plan, ctx, payment.flow === 'plan');
      return { ok: false, error: this.cardError(current, outcome) };
    }
    if (outcome.kind === 'requires_action') {
      current = this.update(current, { status: 'requires_action', lastPaymentError: null });
      batch.push(this.emit('payment_intent.requires_action', current, null, ctx));
    } else if (outcome.kind === 'hold' || (payment.flow === 'plan' && !plan.webhookBeforeResponse)) {
      current = this.update(current, { status: 'processing', lastPaymentError: null });
      batch.push(this.emit('payment_intent.processing', current, null, ctx));
      if (outcome.kind === 'succeed') this.scheduleSettle(current.id, plan);
    } else {
      current = this.update(current, { lastPaymentError: null });
      this.succeed(current, card, ctx, batch);
    }
    // The answer is the state right after this request's own transition (a settlement scheduled at 0 ms must not
    // leak into it).
    const object = this.intentObject(current.id);
    await this.flush(batch, plan, ctx);
    return { ok: true, object };
  }

  private outcomeOf(
    payment: SandboxPayment,
    card: CardChoice | null,
    ctx: ActionContext,
  ):
    | { kind: 'succeed' | 'hold' | 'requires_action' }
    | { kind: 'decline'; code: string; declineCode: string | null; message: string } {
    const explicit = ctx.explicit.outcome ?? (payment.flow === 'plan' ? payment.plan.outcome : undefined);
    const plan = this.planOf(payment, ctx);
    if (explicit === 'decline') {
      return {
        kind: 'decline',
        code: 'card_declined',
        declineCode: plan.declineCode,
        message: 'Your card was declined.',
      };
    }
    if (explicit !== undefined) return { kind: explicit === 'succeed' ? 'succeed' : explicit };
    if (card === null) return { kind: 'succeed' };
    if (card.card === null) {
      return {
        kind: 'decline',
        code: 'card_declined',
        declineCode: 'test_mode_live_card',
        message: 'Your card was declined. Your request was in test mode, but used a non test card.',
      };
    }
    const cardOutcome = card.card.outcome;
    return cardOutcome.kind === 'decline' ? { ...cardOutcome, kind: 'decline' } : cardOutcome;
  }

  private newCharge(payment: SandboxPayment, card: CardChoice | null, change: Partial<SandboxCharge>): SandboxCharge {
    const charge: SandboxCharge = Object.freeze({
      id: stripeId('ch'),
      paymentIntentId: payment.id,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      status: 'succeeded',
      captured: true,
      amountCaptured: payment.amountMinor,
      amountRefunded: 0,
      paymentMethod: card?.paymentMethod ?? payment.paymentMethod ?? 'pm_card_visa',
      card: { brand: card?.card?.brand ?? 'visa', last4: card?.last4 ?? '4242' },
      failureCode: null,
      failureMessage: null,
      declineCode: null,
      createdSec: this.nowSec(),
      metadata: payment.metadata,
      ...change,
    });
    this.charges.set(charge.id, charge);
    return charge;
  }

  private decline(
    payment: SandboxPayment,
    card: CardChoice | null,
    outcome: { code: string; declineCode: string | null; message: string },
    ctx: ActionContext,
    batch: PendingEvent[],
  ): SandboxPayment {
    const charge = this.newCharge(payment, card, {
      status: 'failed',
      captured: false,
      amountCaptured: 0,
      failureCode: outcome.code,
      failureMessage: outcome.message,
      declineCode: outcome.declineCode,
    });
    const error = {
      ...declineError(outcome.code, outcome.declineCode, outcome.message),
      charge: charge.id,
      payment_method: { id: charge.paymentMethod, object: 'payment_method', type: 'card' },
    };
    const failed = this.update(payment, {
      status: 'requires_payment_method',
      latestChargeId: charge.id,
      lastPaymentError: error,
      paymentMethod: null,
    });
    batch.push(this.emit('charge.failed', failed, charge.id, ctx));
    batch.push(this.emit('payment_intent.payment_failed', failed, null, ctx));
    return failed;
  }

  private cardError(payment: SandboxPayment, outcome: { code: string; declineCode: string | null; message: string }) {
    const extra: JsonObject = {
      code: outcome.code,
      charge: payment.latestChargeId,
      doc_url: `https://stripe.com/docs/error-codes/${outcome.code.replace(/_/g, '-')}`,
      payment_intent: paymentIntentObject(payment, this.settings.baseUrl()),
    };
    if (outcome.declineCode !== null) extra.decline_code = outcome.declineCode;
    return new StripeApiError(402, 'card_error', outcome.message, extra);
  }

  /** A successful authorization: captured at once (`succeeded`) or held (`requires_capture`). */
  private succeed(payment: SandboxPayment, card: CardChoice | null, ctx: ActionContext, batch: PendingEvent[]) {
    const manual = payment.captureMethod === 'manual';
    const charge = this.newCharge(payment, card, manual ? { captured: false, amountCaptured: 0 } : {});
    const next = this.update(payment, {
      status: manual ? 'requires_capture' : 'succeeded',
      latestChargeId: charge.id,
      amountCapturable: manual ? payment.amountMinor : 0,
      amountReceived: manual ? 0 : payment.amountMinor,
    });
    // Stripe does not order events; the intent's own event goes first, as payonce's sandbox always sent it.
    batch.push(
      this.emit(manual ? 'payment_intent.amount_capturable_updated' : 'payment_intent.succeeded', next, null, ctx),
    );
    batch.push(this.emit('charge.succeeded', next, charge.id, ctx));
    const plan = this.planOf(next, ctx);
    if (!manual && plan.refundAfterSettle) this.refundCharge(charge.id, charge.amountMinor, null, {}, ctx, batch);
    return next;
  }

  private scheduleSettle(id: string, plan: ResolvedPaymentPlan): void {
    const { dispatcher, timeScale } = this.settings;
    dispatcher.track(
      dispatcher
        .wait(Math.round(plan.settleAfterMs * timeScale))
        .then(() =>
          dispatcher.closed
            ? undefined
            : this.settle(id, 'succeed', { ...CONTROL_CONTEXT, source: 'creating request' }),
        ),
    );
  }

  /**
   * Ends a `processing` or `requires_action` payment (control `settle`, or the plan flow's timer): `succeed` makes
   * the charge, `decline` fails it. Resolves once the first delivery attempts finished. Others: unchanged.
   * @throws {StripeApiError} 404 unknown id.
   */
  async settle(
    id: string,
    outcome: 'succeed' | 'decline',
    ctx: ActionContext = CONTROL_CONTEXT,
  ): Promise<SandboxPayment> {
    const payment = this.payment(id);
    if (payment.status !== 'processing' && payment.status !== 'requires_action') return payment;
    const batch: PendingEvent[] = [];
    const settleCtx = {
      ...ctx,
      requestId: ctx.requestId ?? payment.requestId,
      idempotencyKey: ctx.idempotencyKey ?? payment.idempotencyKey,
    };
    if (outcome === 'decline') {
      const plan = this.planOf(payment, ctx);
      const failed = this.decline(
        payment,
        null,
        { code: 'card_declined', declineCode: plan.declineCode, message: 'Your card was declined.' },
        settleCtx,
        batch,
      );
      await this.flush(batch, plan, settleCtx, true);
      return failed;
    }
    const card = payment.paymentMethod === null ? null : this.methods.byId(payment.paymentMethod);
    const next = this.succeed(payment, card, settleCtx, batch);
    await this.flush(batch, this.planOf(next, ctx), settleCtx, true);
    return this.payments.get(id) ?? next;
  }

  /** `POST /v1/payment_intents/:id/capture` (`amount_to_capture` ≤ `amount_capturable`). */
  async capturePaymentIntent(id: string, params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only([
      'amount_to_capture',
      'metadata',
      'expand',
      'statement_descriptor',
      'statement_descriptor_suffix',
      'final_capture',
    ]);
    const payment = this.payment(id);
    if (payment.status !== 'requires_capture') {
      throw unexpectedState(
        this.intentObject(id),
        'capture',
        ' Only a requires_capture PaymentIntent can be captured.',
      );
    }
    const amount = params.integer('amount_to_capture', 1, payment.amountCapturable) ?? payment.amountCapturable;
    const charge = this.charge(payment.latestChargeId!);
    const captured = this.updateCharge(charge, { captured: true, amountCaptured: amount });
    const next = this.update(payment, {
      status: 'succeeded',
      amountCapturable: 0,
      amountReceived: amount,
      metadata: Object.freeze(mergeMetadata(payment.metadata, params.metadata())),
    });
    const batch = [
      this.emit('charge.captured', next, captured.id, ctx),
      this.emit('payment_intent.succeeded', next, null, ctx),
    ];
    await this.flush(batch, this.planOf(next, ctx), ctx);
    return { ok: true, object: this.intentObject(id) };
  }

  /** `POST /v1/payment_intents/:id/cancel`. @throws {StripeApiError} 400 payment_intent_unexpected_state. */
  async cancelPaymentIntent(id: string, params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(['cancellation_reason', 'expand']);
    const payment = this.payment(id);
    if (!CANCELABLE.has(payment.status)) throw unexpectedState(this.intentObject(id), 'cancel');
    const reason = params.oneOf('cancellation_reason', CANCEL_REASONS) ?? null;
    const next = this.update(payment, {
      status: 'canceled',
      canceledSec: this.nowSec(),
      cancellationReason: reason,
      amountCapturable: 0,
    });
    await this.flush([this.emit('payment_intent.canceled', next, null, ctx)], this.planOf(next, ctx), ctx);
    return { ok: true, object: this.intentObject(id) };
  }

  // ---- Refunds ----------------------------------------------------------------------------------------------------

  /** `POST /v1/refunds` (`payment_intent` or `charge`, optional `amount` for a partial refund). */
  async createRefund(params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(['payment_intent', 'charge', 'amount', 'reason', 'metadata', 'expand', 'instructions_email']);
    const intentId = params.string('payment_intent', 255);
    const chargeId = params.string('charge', 255);
    if (intentId === undefined && chargeId === undefined) {
      throw invalidParam(
        'payment_intent',
        'One of the following params should be provided for this request: payment_intent or charge.',
        'parameter_missing',
      );
    }
    const charge =
      chargeId !== undefined ? this.charge(chargeId) : this.capturedChargeOf(this.payment(intentId!), intentId!);
    if (intentId !== undefined && charge.paymentIntentId !== intentId) {
      throw invalidParam('charge', `Charge ${charge.id} does not belong to PaymentIntent ${intentId}.`);
    }
    if (charge.status !== 'succeeded' || !charge.captured) {
      throw invalidParam(
        chargeId === undefined ? 'payment_intent' : 'charge',
        `Charge ${charge.id} has no captured funds to refund.`,
        'charge_not_refundable',
      );
    }
    const left = charge.amountCaptured - charge.amountRefunded;
    if (left <= 0) {
      throw new StripeApiError(400, 'invalid_request_error', `Charge ${charge.id} has already been refunded.`, {
        code: 'charge_already_refunded',
      });
    }
    const amount = params.integer('amount', 1, Number.MAX_SAFE_INTEGER) ?? left;
    if (amount > left) {
      throw invalidParam(
        'amount',
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left}).`,
        'amount_too_large',
      );
    }
    const reason = params.oneOf('reason', REFUND_REASONS) ?? null;
    const batch: PendingEvent[] = [];
    const refund = this.refundCharge(charge.id, amount, reason, mergeMetadata({}, params.metadata()), ctx, batch);
    await this.flush(batch, this.planOf(this.payment(charge.paymentIntentId), ctx), ctx);
    return { ok: true, object: refundObject(refund) };
  }

  private capturedChargeOf(payment: SandboxPayment, id: string): SandboxCharge {
    const charge = payment.latestChargeId === null ? undefined : this.charges.get(payment.latestChargeId);
    if (charge === undefined || charge.status !== 'succeeded') {
      throw invalidParam(
        'payment_intent',
        `PaymentIntent ${id} does not have a successful charge to refund.`,
        'charge_not_refundable',
      );
    }
    return charge;
  }

  private refundCharge(
    chargeId: string,
    amount: number,
    reason: string | null,
    metadata: Record<string, string>,
    ctx: ActionContext,
    batch: PendingEvent[],
  ): SandboxRefund {
    const charge = this.charge(chargeId);
    const refund: SandboxRefund = Object.freeze({
      id: stripeId('re'),
      chargeId,
      paymentIntentId: charge.paymentIntentId,
      amountMinor: amount,
      currency: charge.currency,
      status: 'succeeded',
      reason,
      metadata: Object.freeze(metadata),
      createdSec: this.nowSec(),
    });
    this.refunds.set(refund.id, refund);
    this.updateCharge(charge, { amountRefunded: charge.amountRefunded + amount });
    const payment = this.payment(charge.paymentIntentId);
    const next = this.update(payment, { refundedMinor: payment.refundedMinor + amount });
    batch.push(this.emit('refund.created', next, refund.id, ctx));
    batch.push(this.emit('charge.refunded', next, chargeId, ctx));
    return refund;
  }

  /** `POST /v1/refunds/:id` (metadata): `refund.updated`. */
  async updateRefund(id: string, params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(['metadata', 'expand']);
    const refund = this.refund(id);
    const next: SandboxRefund = Object.freeze({
      ...refund,
      metadata: Object.freeze(mergeMetadata(refund.metadata, params.metadata())),
    });
    this.refunds.set(id, next);
    const payment = this.payment(refund.paymentIntentId);
    await this.flush([this.emit('refund.updated', payment, id, ctx)], this.planOf(payment, ctx), ctx);
    return { ok: true, object: refundObject(next) };
  }

  /** Control `refund`: the rest of a succeeded payment's charge, refunded (`charge.refunded`). */
  async refundRest(id: string): Promise<SandboxPayment> {
    const payment = this.payment(id);
    const charge = payment.latestChargeId === null ? undefined : this.charges.get(payment.latestChargeId);
    if (payment.status !== 'succeeded' || charge === undefined) return payment;
    const left = charge.amountCaptured - charge.amountRefunded;
    if (left <= 0) return payment;
    const batch: PendingEvent[] = [];
    this.refundCharge(charge.id, left, null, {}, CONTROL_CONTEXT, batch);
    await this.flush(batch, payment.plan, { ...CONTROL_CONTEXT, requestId: null }, true);
    return this.payment(id);
  }

  // ---- Events -----------------------------------------------------------------------------------------------------

  private objectFor(type: string, payment: SandboxPayment, subjectId: string | null): JsonObject {
    if (type.startsWith('charge.')) return this.chargeObject(subjectId ?? payment.latestChargeId!);
    if (type.startsWith('refund.')) return refundObject(this.refund(subjectId!));
    return paymentIntentObject(payment, this.settings.baseUrl());
  }

  /** Records one event about `payment` (its object as a retrieve returns it now). */
  private emit(type: string, payment: SandboxPayment, subjectId: string | null, ctx: ActionContext): PendingEvent {
    const object = this.objectFor(type, payment, subjectId);
    return this.log.emit(type, object, payment, this.planOf(payment, ctx).twoEventIds, ctx);
  }

  private flush(batch: readonly PendingEvent[], plan: ResolvedPaymentPlan, ctx: ActionContext, wait = false) {
    return this.log.flush(batch, plan, ctx, wait);
  }
}
