import { randomUUID } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import express, { type Router } from 'express';
import { expressIdempotencyKey, expressStackTransaction } from 'payonce/http/express';
import { fulfilments, orderEvents, orders, paymentAttempts } from './schema.js';
import { customerOf, type Shop } from './shop.js';
import { startPayment } from './start-payment.js';

/** The body of `POST /orders`, checked: a positive amount in minor units and a 3-letter currency. */
function newOrderOf(body: unknown): { amountMinor: number; currency: string } | null {
  const { amount, currency } = (body ?? {}) as { amount?: unknown; currency?: unknown };
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) return null;
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) return null;
  return { amountMinor: amount as number, currency: currency.toUpperCase() };
}

/** Where an order's payment state lives when it is not in the shop's own rows. */
export interface OrderViews {
  /** A Telegram Stars order's status, paid transitions and refunds (payonce's `Payments`), given its shipments. */
  readonly telegram?: (
    orderId: string,
    shipped: number,
  ) => Promise<{ status: string; paidTransitions: number; refunds: number } | null>;
}

/**
 * The shop's routes. `POST /orders` `{ amount, currency }` (optional `Idempotency-Key`: the order row and the key's
 * stored answer commit in one Drizzle transaction), `POST /orders/:id/pay` (required `Idempotency-Key`: a retry
 * replays the first answer), `GET /orders/:id` (the order, its attempts and how many times it was paid, refunded and
 * shipped; a Telegram Stars order's status and paid transitions from `views.telegram`).
 * The customer is `X-Customer-Id`; bad input answers 400 `{ error }`, an unknown order 404.
 */
export function orderRoutes(shop: Shop, views: OrderViews = {}): Router {
  const router = express.Router();
  const principal = (req: express.Request) => customerOf(req);
  const createKey = expressIdempotencyKey({
    guard: shop.guard,
    transaction: shop.transactions,
    principal,
    requireKey: false,
  });
  router.post('/orders', createKey, async (req, res) => {
    const wanted = newOrderOf(req.body);
    if (wanted === null) {
      res.status(400).json({ error: 'amount must be a positive integer (minor units), currency 3 letters' });
      return;
    }
    const tx = expressStackTransaction(req, shop.transactions);
    const order = { id: `ord_${randomUUID()}`, customer: customerOf(req), status: 'new', ...wanted };
    await tx.insert(orders).values(order);
    res
      .status(201)
      .json({ id: order.id, status: order.status, amountMinor: order.amountMinor, currency: order.currency });
  });

  router.post('/orders/:id/pay', expressIdempotencyKey({ guard: shop.guard, principal }), async (req, res) => {
    const answer = await startPayment(shop, customerOf(req), String(req.params.id));
    res.status(answer.status).json(answer.body);
  });

  router.get('/orders/:id', async (req, res) => {
    const id = String(req.params.id);
    const [order] = await shop.db
      .select()
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.customer, customerOf(req))));
    if (order === undefined) {
      res.status(404).json({ error: 'no such order' });
      return;
    }
    const events = (kind: string) =>
      shop.db
        .select({ n: count() })
        .from(orderEvents)
        .where(and(eq(orderEvents.orderId, id), eq(orderEvents.kind, kind)));
    const [attempts, [paid], [refunded], [shipped]] = await Promise.all([
      shop.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, id)),
      events('paid'),
      events('refunded'),
      shop.db.select({ n: count() }).from(fulfilments).where(eq(fulfilments.orderId, id)),
    ]);
    const counts = { paidTransitions: paid?.n ?? 0, refunds: refunded?.n ?? 0, fulfilments: shipped?.n ?? 0 };
    const stars = order.currency === 'XTR' ? await views.telegram?.(id, counts.fulfilments) : undefined;
    res.json({ ...order, attempts, ...counts, ...stars });
  });
  return router;
}
