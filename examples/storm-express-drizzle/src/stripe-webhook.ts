import {
  createWebhookIntake,
  SqlDeliveryJournal,
  stripeProfile,
  stripeScheme,
  type WebhookIntake,
} from 'payonce/webhooks';
import { markPaid } from './mark-paid.js';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/** The provider events that announce a successful payment (two event ids for one payment). */
const SUCCESS = new Set(['payment_intent.succeeded', 'charge.succeeded']);

/** The order a Stripe event names (`data.object.metadata.order_id`, set by start-payment.ts), `null` when none. */
function orderIdOf(payload: unknown): string | null {
  const id = (payload as { data?: { object?: { metadata?: { order_id?: unknown } } } } | null)?.data?.object?.metadata
    ?.order_id;
  return typeof id === 'string' ? id : null;
}

/**
 * The Stripe webhook through payonce's intake (`POST /webhooks/stripe` with `expressWebhooks`): the signature is
 * checked on the exact bytes, the event id's receipt, the order update and the fulfilment job commit in ONE Drizzle
 * transaction, and a redelivered event is answered from its receipt without running the handler again.
 */
export function stripeWebhookIntake(shop: Shop): WebhookIntake {
  return createWebhookIntake({
    guard: shop.guard,
    journal: new SqlDeliveryJournal(shop.store),
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: [shop.webhookSecret] }),
        transaction: shop.transactions,
        handler: async (event, { tx, payonceTx }) => {
          if (!SUCCESS.has(event.eventType) || event.merchantReference === null || event.eventId === null) return;
          const orderId = await markPaid(tx, {
            eventId: event.eventId,
            attemptId: event.merchantReference,
            paymentId: event.paymentId,
            amountMinor: event.amountMinor,
            currency: event.currency,
            orderId: orderIdOf(event.payload),
          });
          if (orderId !== null) await shop.outbox.enqueueOnce(payonceTx, FULFIL_TOPIC, `order:${orderId}`, { orderId });
        },
      },
    },
  });
}
