import { randomBytes } from 'node:crypto';
import type { SandboxPayment } from './sandbox-payment.js';

/** The Stripe API version written into events and answers. */
export const SANDBOX_API_VERSION = '2024-06-20';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A Stripe-style id: `prefix_` + 24 random base-62 characters (e.g. `pi_…`, `evt_…`, `req_…`). */
export function stripeId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${out}`;
}

/** JSON object. */
export type JsonObject = { [key: string]: unknown };

const STRIPE_STATUS = {
  processing: 'processing',
  requires_action: 'requires_action',
  succeeded: 'succeeded',
  failed: 'requires_payment_method',
  canceled: 'canceled',
} as const;

/** The `last_payment_error` of a declined payment (Stripe's generic decline). */
export function declineError(): JsonObject {
  return {
    type: 'card_error',
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  };
}

function metadata(payment: SandboxPayment): JsonObject {
  const out: JsonObject = { merchant_reference: payment.merchantReference };
  if (payment.orderId !== null) out.order_id = payment.orderId;
  return out;
}

/**
 * `payment` as a Stripe PaymentIntent object (shape of `stripe/payloads/openapi-resource-fixtures.json`
 * `payment_intent`): `amount` in minor units, lower-case `currency`, `metadata.merchant_reference`, status in
 * Stripe's names (a decline is `requires_payment_method` with `last_payment_error`).
 * @see https://docs.stripe.com/api/payment_intents/object
 */
export function paymentIntentObject(payment: SandboxPayment, baseUrl: string): JsonObject {
  const succeeded = payment.status === 'succeeded';
  return {
    id: payment.id,
    object: 'payment_intent',
    amount: payment.amountMinor,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: succeeded ? payment.amountMinor : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: payment.canceledSec,
    cancellation_reason: payment.status === 'canceled' ? 'requested_by_customer' : null,
    capture_method: 'automatic',
    client_secret: `${payment.id}_secret_sandbox`,
    confirmation_method: 'automatic',
    created: payment.createdSec,
    currency: payment.currency.toLowerCase(),
    customer: null,
    description: null,
    last_payment_error: payment.status === 'failed' ? declineError() : null,
    latest_charge: succeeded || payment.status === 'failed' ? payment.chargeId : null,
    livemode: false,
    metadata: metadata(payment),
    next_action:
      payment.status === 'requires_action'
        ? {
            type: 'redirect_to_url',
            redirect_to_url: { url: `${baseUrl}/pay/${payment.id}`, return_url: null },
          }
        : null,
    on_behalf_of: null,
    payment_method: payment.status === 'processing' || succeeded ? 'pm_card_visa' : null,
    payment_method_options: {},
    payment_method_types: ['card'],
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: STRIPE_STATUS[payment.status],
    transfer_data: null,
    transfer_group: null,
  };
}

/**
 * The charge of a succeeded `payment` as a Stripe Charge object (shape of `stripe/payloads/charge.refunded.json`):
 * `amount` is the charged amount, `amount_refunded` the refunded part, `payment_intent` the `pi_…` id and the
 * PaymentIntent's metadata copied, as Stripe does for charges made by a PaymentIntent.
 * @see https://docs.stripe.com/api/charges/object
 */
export function chargeObject(payment: SandboxPayment, refundId: string | null): JsonObject {
  const refunded = payment.refundedMinor > 0;
  return {
    id: payment.chargeId,
    object: 'charge',
    amount: payment.amountMinor,
    amount_captured: payment.amountMinor,
    amount_refunded: payment.refundedMinor,
    balance_transaction: null,
    captured: true,
    created: payment.createdSec,
    currency: payment.currency.toLowerCase(),
    customer: null,
    description: null,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: metadata(payment),
    outcome: { network_status: 'approved_by_network', reason: null, risk_level: 'normal', type: 'authorized' },
    paid: true,
    payment_intent: payment.id,
    payment_method: 'pm_card_visa',
    refunded: refunded && payment.refundedMinor >= payment.amountMinor,
    refunds: {
      object: 'list',
      data:
        refundId === null
          ? []
          : [
              {
                id: refundId,
                object: 'refund',
                amount: payment.refundedMinor,
                charge: payment.chargeId,
                currency: payment.currency.toLowerCase(),
                metadata: {},
                payment_intent: payment.id,
                status: 'succeeded',
              },
            ],
      has_more: false,
      total_count: refundId === null ? 0 : 1,
      url: `/v1/charges/${payment.chargeId}/refunds`,
    },
    status: 'succeeded',
  };
}

/**
 * A Stripe event envelope `{ id: "evt_…", object: "event", api_version, created, data: { object }, livemode,
 * pending_webhooks, request: { id, idempotency_key }, type }`.
 * @see https://docs.stripe.com/api/events/object
 */
export function stripeEvent(
  id: string,
  type: string,
  object: JsonObject,
  createdSec: number,
  request: { id: string | null; idempotencyKey: string | null },
): JsonObject {
  return {
    id,
    object: 'event',
    api_version: SANDBOX_API_VERSION,
    created: createdSec,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
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
