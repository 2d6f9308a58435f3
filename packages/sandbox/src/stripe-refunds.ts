import { type ActionContext, CONTROL_CONTEXT } from './action-context.js';
import type { PendingEvent } from './event-log.js';
import type { SandboxCharge, SandboxPayment, SandboxRefund } from './sandbox-payment.js';
import { type ActionResult, StripeLedger } from './stripe-ledger.js';
import { refundObject, stripeId } from './stripe-objects.js';
import { REFUND_PARAMS, REFUND_REASONS, REFUND_UPDATE_PARAMS } from './stripe-params.js';
import { mergeMetadata, type Params } from './wire/params.js';
import { invalidParam, StripeApiError } from './wire/stripe-api-error.js';

/**
 * The sandbox's Refunds: `POST /v1/refunds` (whole or partial, by PaymentIntent or Charge), `POST /v1/refunds/:id`
 * and the control `refund`, each emitting `refund.created` / `charge.refunded` / `refund.updated` as Stripe does.
 * @see https://docs.stripe.com/api/refunds; https://docs.stripe.com/refunds
 */
export abstract class StripeRefunds extends StripeLedger {
  /** `POST /v1/refunds` (`payment_intent` or `charge`, optional `amount` for a partial refund). */
  async createRefund(params: Params, ctx: ActionContext): Promise<ActionResult> {
    params.only(REFUND_PARAMS);
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

  protected capturedChargeOf(payment: SandboxPayment, id: string): SandboxCharge {
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

  protected refundCharge(
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
    params.only(REFUND_UPDATE_PARAMS);
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
}
