import type { ActionContext } from './action-context.js';
import type { CardChoice } from './payment-methods.js';
import { resolvePaymentPlan } from './payment-plan.js';
import type { SandboxPayment } from './sandbox-payment.js';
import { paymentIntentObject } from './stripe-objects.js';
import { type JsonObject, StripeApiError } from './wire/stripe-api-error.js';

/** A card's answer to a confirmation. */
export type CardOutcome = { kind: 'succeed' | 'hold' | 'requires_action' } | CardDecline;

/** A decline: Stripe's `code`, `decline_code` and message. */
export interface CardDecline {
  kind: 'decline';
  code: string;
  declineCode: string | null;
  message: string;
}

/**
 * What confirming `payment` with `card` does: the request's or the plan's forced outcome first, then the test
 * card's own (a card that is not a test card declines `test_mode_live_card`); no card (the asynchronous test
 * method) succeeds.
 * @see https://docs.stripe.com/testing#cards
 */
export function outcomeOf(payment: SandboxPayment, card: CardChoice | null, ctx: ActionContext): CardOutcome {
  const explicit = ctx.explicit.outcome ?? (payment.flow === 'plan' ? payment.plan.outcome : undefined);
  const plan = resolvePaymentPlan(payment.plan, ctx.explicit);
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

/**
 * The `402 card_error` a decline answers, with the payment as it is after the decline.
 * @see https://docs.stripe.com/error-codes
 */
export function cardError(
  payment: SandboxPayment,
  outcome: { code: string; declineCode: string | null; message: string },
  baseUrl: string,
): StripeApiError {
  const extra: JsonObject = {
    code: outcome.code,
    charge: payment.latestChargeId,
    doc_url: `https://stripe.com/docs/error-codes/${outcome.code.replace(/_/g, '-')}`,
    payment_intent: paymentIntentObject(payment, baseUrl),
  };
  if (outcome.declineCode !== null) extra.decline_code = outcome.declineCode;
  return new StripeApiError(402, 'card_error', outcome.message, extra);
}
