import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import express, { type Router } from 'express';
import { withDrizzleTransaction } from 'payonce/tx/drizzle';
import type Stripe from 'stripe';
import { orderEvents, orders, paymentAttempts } from './schema.js';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/**
 * THE BROKEN VARIANT (`STORM_EXAMPLE_BROKEN=no-receipt`), for the storm to catch: a plain express route with the
 * Stripe SDK's signature check and no receipt, trusting every delivery to come once. Each success event marks the
 * order paid again (another `paid` row) and queues one more fulfilment, keyed by its event id: a redelivery, or
 * `charge.succeeded` after `payment_intent.succeeded`, ships the goods twice. Never write a webhook like this.
 */
export function brokenStripeWebhook(shop: Shop): Router {
  const router = express.Router();
  router.post('/webhooks/stripe', express.raw({ type: () => true }), async (req, res) => {
    let event: Stripe.Event;
    try {
      const signature = req.get('stripe-signature') ?? '';
      event = shop.stripe.webhooks.constructEvent(req.body as Buffer, signature, shop.webhookSecret);
    } catch {
      res.status(400).json({ error: 'bad signature' });
      return;
    }
    if (event.type !== 'payment_intent.succeeded' && event.type !== 'charge.succeeded') {
      res.json({ received: true });
      return;
    }
    const attemptId = event.data.object.metadata?.merchant_reference;
    await shop.db.transaction(async (tx) => {
      const [attempt] = await tx
        .select()
        .from(paymentAttempts)
        .where(eq(paymentAttempts.id, attemptId ?? ''));
      if (attempt === undefined) return;
      await tx.update(paymentAttempts).set({ status: 'succeeded' }).where(eq(paymentAttempts.id, attempt.id));
      await tx.update(orders).set({ status: 'paid' }).where(eq(orders.id, attempt.orderId));
      await tx
        .insert(orderEvents)
        .values({ id: randomUUID(), orderId: attempt.orderId, kind: 'paid', eventId: event.id });
      await withDrizzleTransaction(shop.store, tx, (trx) =>
        shop.outbox.enqueueOnce(trx, FULFIL_TOPIC, `event:${event.id}`, { orderId: attempt.orderId }),
      );
    });
    res.json({ received: true });
  });
  return router;
}
