import { type ActionContext, CONTROL_CONTEXT } from './action-context.js';
import { cardError, outcomeOf } from './card-outcome.js';
import { checkAmount, checkCurrency } from './currencies.js';
import type { PendingEvent } from './event-log.js';
import type { CardChoice } from './payment-methods.js';
import type { ResolvedPaymentPlan } from './payment-plan.js';
import type { SandboxCharge, SandboxPayment } from './sandbox-payment.js';
import type { ActionResult } from './stripe-ledger.js';
import { declineError, stripeId } from './stripe-objects.js';
import {
  CANCEL_PARAMS,
  CANCEL_REASONS,
  CANCELABLE,
  CAPTURE_METHODS,
  CAPTURE_PARAMS,
  CONFIRM_PARAMS,
  CONFIRMABLE,
  CREATE_PARAMS,
  UPDATE_PARAMS,
} from './stripe-params.js';
import { StripeRefunds } from './stripe-refunds.js';
import { mergeMetadata, type Params } from './wire/params.js';
import { invalidParam, type JsonObject, StripeApiError } from './wire/stripe-api-error.js';

export type { ActionResult, EngineSettings } from './stripe-ledger.js';

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
export class StripeEngine extends StripeRefunds {
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
    const outcome = outcomeOf(payment, card, ctx);
    let current = payment;
    if (outcome.kind === 'decline') {
      current = this.decline(current, card, outcome, ctx, batch);
      await this.flush(batch, plan, ctx, payment.flow === 'plan');
      return { ok: false, error: cardError(current, outcome, this.settings.baseUrl()) };
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

  /** A successful authorization: captured at once (`succeeded`) or held (`requires_capture`). */
  protected succeed(payment: SandboxPayment, card: CardChoice | null, ctx: ActionContext, batch: PendingEvent[]) {
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
    params.only(CAPTURE_PARAMS);
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
    params.only(CANCEL_PARAMS);
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
}
