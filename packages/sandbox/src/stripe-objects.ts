import { randomBytes } from 'node:crypto';
import type { SandboxCharge, SandboxPayment, SandboxRefund } from './sandbox-payment.js';
import type { JsonObject } from './wire/stripe-api-error.js';

export type { JsonObject } from './wire/stripe-api-error.js';

/** The Stripe API version written into events and answers (a request's `Stripe-Version` is echoed instead). */
export const SANDBOX_API_VERSION = '2024-06-20';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A Stripe-style id: `prefix_` + 24 random base-62 characters (e.g. `pi_…`, `evt_…`, `req_…`). */
export function stripeId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${out}`;
}

/** The `last_payment_error` / card error of a decline (Stripe's generic decline unless told otherwise). */
export function declineError(
  code = 'card_declined',
  declineCode: string | null = 'generic_decline',
  message = 'Your card was declined.',
): JsonObject {
  const out: JsonObject = { type: 'card_error', code, message };
  if (declineCode !== null) out.decline_code = declineCode;
  return out;
}

/**
 * `payment` as a Stripe PaymentIntent object: `amount` in minor units, lower-case `currency`, status and
 * `last_payment_error` in Stripe's names, `latest_charge` the newest `ch_…`.
 * @see https://docs.stripe.com/api/payment_intents/object
 */
export function paymentIntentObject(payment: SandboxPayment, baseUrl: string): JsonObject {
  const hasMethod = payment.paymentMethod !== null && payment.status !== 'requires_payment_method';
  return {
    id: payment.id,
    object: 'payment_intent',
    amount: payment.amountMinor,
    amount_capturable: payment.amountCapturable,
    amount_details: { tip: {} },
    amount_received: payment.amountReceived,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: payment.canceledSec,
    cancellation_reason: payment.cancellationReason,
    capture_method: payment.captureMethod,
    client_secret: `${payment.id}_secret_sandbox`,
    confirmation_method: 'automatic',
    created: payment.createdSec,
    currency: payment.currency.toLowerCase(),
    customer: null,
    description: payment.description,
    last_payment_error: payment.lastPaymentError,
    latest_charge: payment.latestChargeId,
    livemode: false,
    metadata: { ...payment.metadata },
    next_action:
      payment.status === 'requires_action'
        ? { type: 'redirect_to_url', redirect_to_url: { url: `${baseUrl}/pay/${payment.id}`, return_url: null } }
        : null,
    on_behalf_of: null,
    payment_method: hasMethod ? payment.paymentMethod : null,
    payment_method_options: {},
    payment_method_types: [...payment.paymentMethodTypes],
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: payment.status,
    transfer_data: null,
    transfer_group: null,
  };
}

/** A Stripe Refund object. @see https://docs.stripe.com/api/refunds/object */
export function refundObject(refund: SandboxRefund): JsonObject {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amountMinor,
    balance_transaction: null,
    charge: refund.chargeId,
    created: refund.createdSec,
    currency: refund.currency.toLowerCase(),
    destination_details: { card: { type: 'refund' }, type: 'card' },
    metadata: { ...refund.metadata },
    payment_intent: refund.paymentIntentId,
    reason: refund.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: refund.status,
    transfer_reversal: null,
  };
}

/**
 * A Stripe Charge object: `amount` charged, `amount_captured`, `amount_refunded`, `refunded` once fully refunded,
 * `payment_intent`, the PaymentIntent's metadata copied (as Stripe does for charges made by a PaymentIntent),
 * `refunds` as a list of its refunds.
 * @see https://docs.stripe.com/api/charges/object
 */
export function chargeObject(charge: SandboxCharge, refunds: readonly SandboxRefund[]): JsonObject {
  const failed = charge.status === 'failed';
  return {
    id: charge.id,
    object: 'charge',
    amount: charge.amountMinor,
    amount_captured: charge.amountCaptured,
    amount_refunded: charge.amountRefunded,
    balance_transaction: null,
    captured: charge.captured,
    created: charge.createdSec,
    currency: charge.currency.toLowerCase(),
    customer: null,
    description: null,
    disputed: false,
    failure_code: charge.failureCode,
    failure_message: charge.failureMessage,
    livemode: false,
    metadata: { ...charge.metadata },
    outcome: failed
      ? {
          network_status: 'declined_by_network',
          reason: charge.declineCode,
          risk_level: 'normal',
          seller_message: 'The bank did not return any further details with this decline.',
          type: 'issuer_declined',
        }
      : {
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: charge.status === 'succeeded',
    payment_intent: charge.paymentIntentId,
    payment_method: charge.paymentMethod,
    payment_method_details:
      charge.card === null ? null : { card: { brand: charge.card.brand, last4: charge.card.last4 }, type: 'card' },
    refunded: charge.amountRefunded > 0 && charge.amountRefunded >= charge.amountCaptured,
    refunds: {
      object: 'list',
      data: refunds.map(refundObject),
      has_more: false,
      total_count: refunds.length,
      url: `/v1/charges/${charge.id}/refunds`,
    },
    status: charge.status,
  };
}

/**
 * A Stripe event envelope `{ id: "evt_…", object: "event", api_version, created, data: { object,
 * previous_attributes? }, livemode, pending_webhooks, request: { id, idempotency_key }, type }`.
 * @see https://docs.stripe.com/api/events/object
 */
export function stripeEvent(
  id: string,
  type: string,
  object: JsonObject,
  createdSec: number,
  request: { id: string | null; idempotencyKey: string | null },
  pendingWebhooks = 1,
): JsonObject {
  return {
    id,
    object: 'event',
    api_version: SANDBOX_API_VERSION,
    created: createdSec,
    data: { object },
    livemode: false,
    pending_webhooks: pendingWebhooks,
    request: { id: request.id, idempotency_key: request.idempotencyKey },
    type,
  };
}

/**
 * A Standard Webhooks payload `{ type, timestamp (ISO 8601), data }`; the event id travels in `webhook-id`.
 * @see standard-webhooks spec "Payload structure".
 */
export function standardWebhooksEvent(type: string, timestampMs: number, data: JsonObject): JsonObject {
  return { type, timestamp: new Date(timestampMs).toISOString(), data };
}
