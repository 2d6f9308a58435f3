import { readFixture, type Vector } from '../fixtures.js';
import { stripeV1 } from '../signers.js';

/** Stripe's test vector (stripe-node `test/Webhook.spec.ts` constants): secret, header, body, "now". */
export const STRIPE_VECTOR = readFixture('stripe/signature/01-valid-basic.json') as Vector;
/** The webhook signing secret of the fixtures (`whsec_test_secret`). */
export const STRIPE_SECRET = STRIPE_VECTOR.secret;

/** `Stripe-Signature: t=<t>,v1=<hex>` for `body` signed with the fixtures' secret at Unix second `t`. */
export function stripeSignature(body: string, t: number): string {
  return `t=${t},v1=${stripeV1(STRIPE_SECRET, t, Buffer.from(body, 'utf8'))}`;
}

/** Headers of a signed Stripe delivery, signed now (or at `t`). */
export function signedStripeHeaders(body: string, t = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { 'stripe-signature': stripeSignature(body, t), 'content-type': 'application/json; charset=utf-8' };
}

/**
 * A Stripe `invoice.paid` event body for `invoiceId` with event id `eventId`, in the envelope of the fixtures'
 * captured events (`id`, `object`, `api_version`, `created`, `data.object`, `livemode`, `pending_webhooks`,
 * `request`, `type`); the invoice fields are those of Stripe's Invoice object (placeholder customer).
 */
export function invoicePaidBody(eventId: string, invoiceId: string, amountPaid = 2500): string {
  const created = Math.floor(Date.now() / 1000);
  const event = {
    id: eventId,
    object: 'event',
    api_version: '2024-06-20',
    created,
    data: {
      object: {
        id: invoiceId,
        object: 'invoice',
        customer: 'cus_placeholder_1',
        currency: 'usd',
        amount_due: amountPaid,
        amount_paid: amountPaid,
        amount_remaining: 0,
        total: amountPaid,
        status: 'paid',
        billing_reason: 'subscription_cycle',
        subscription: 'sub_placeholder_1',
        metadata: { plan: 'credits-100' },
        livemode: false,
      },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'invoice.paid',
  };
  return JSON.stringify(event, null, 2); // pretty-printed as Stripe sends it: the signature covers these bytes
}
