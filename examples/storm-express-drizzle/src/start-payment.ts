import { randomUUID } from 'node:crypto';
import { and, eq, ne } from 'drizzle-orm';
import Stripe from 'stripe';
import { orders, paymentAttempts } from './schema.js';
import type { Shop } from './shop.js';

type Attempt = typeof paymentAttempts.$inferSelect;

/** The answer of `POST /orders/:id/pay`: the attempt it names and whether it is new. */
export interface PaymentAnswer {
  readonly status: 200 | 201 | 404;
  readonly body: {
    readonly outcome: 'created' | 'existing' | 'already-paid' | 'not-found';
    readonly attemptId: string | null;
    readonly attemptStatus: string | null;
    readonly providerPaymentId: string | null;
  };
}

const answer = (status: PaymentAnswer['status'], outcome: PaymentAnswer['body']['outcome'], a?: Attempt) => ({
  status,
  body: {
    outcome,
    attemptId: a?.id ?? null,
    attemptStatus: a?.status ?? null,
    providerPaymentId: a?.providerPaymentId ?? null,
  },
});

/** A PaymentIntent's status as the attempt's. */
function attemptStatusOf(intent: Stripe.PaymentIntent): string {
  if (intent.status === 'succeeded') return 'succeeded';
  if (intent.status === 'canceled') return 'failed';
  if (intent.status === 'requires_action') return 'requires_action';
  return 'pending';
}

/**
 * Opens the order's payment attempt, or names the one already open: in one transaction with the order row locked,
 * so two tabs (two keys) get ONE attempt. Only an attempt that failed lets a new one open.
 */
async function openAttempt(shop: Shop, customer: string, orderId: string): Promise<PaymentAnswer | Attempt> {
  return shop.db.transaction(async (tx) => {
    const [order] = await tx
      .select()
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.customer, customer)))
      .for('update');
    if (order === undefined) return answer(404, 'not-found');
    const [open] = await tx
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, orderId), ne(paymentAttempts.status, 'failed')));
    // A paid order names the attempt that paid it: a second tab that arrives after the webhook sees the same one.
    if (order.status === 'paid' || order.status === 'fulfilled') return answer(200, 'already-paid', open);
    if (open !== undefined) return answer(200, 'existing', open);
    const attempt: Attempt = {
      id: `pa_${randomUUID()}`,
      orderId,
      status: 'creating',
      providerPaymentId: null,
      amountMinor: order.amountMinor,
      currency: order.currency,
    };
    await tx.insert(paymentAttempts).values(attempt);
    await tx.update(orders).set({ status: 'awaiting_payment' }).where(eq(orders.id, orderId));
    return attempt;
  });
}

/**
 * Asks the provider for the attempt's PaymentIntent, with the attempt id as Stripe's `Idempotency-Key` (a retry
 * never makes a second payment) and as `metadata.merchant_reference` (the webhook finds the attempt by it). A lost
 * answer leaves the attempt `unknown`, never `failed`: the payment may exist, and its webhook will tell.
 */
async function createIntent(shop: Shop, attempt: Attempt): Promise<Partial<Attempt>> {
  try {
    const intent = await shop.stripe.paymentIntents.create(
      {
        amount: attempt.amountMinor,
        currency: attempt.currency.toLowerCase(),
        confirm: true,
        metadata: { merchant_reference: attempt.id, order_id: attempt.orderId },
      },
      { idempotencyKey: attempt.id },
    );
    return { status: attemptStatusOf(intent), providerPaymentId: intent.id };
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) return { status: 'failed' };
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return { status: 'failed' };
    return { status: 'unknown' }; // connection lost, timeout, 5xx: the outcome is not known
  }
}

/**
 * `POST /orders/:id/pay`: opens (or names) the order's payment attempt, then creates its PaymentIntent outside any
 * transaction. The attempt is moved on from `creating` only: a webhook that came before the answer wins.
 */
export async function startPayment(shop: Shop, customer: string, orderId: string): Promise<PaymentAnswer> {
  const opened = await openAttempt(shop, customer, orderId);
  if ('body' in opened) return opened;
  const change = await createIntent(shop, opened);
  await shop.db
    .update(paymentAttempts)
    .set(change)
    .where(and(eq(paymentAttempts.id, opened.id), eq(paymentAttempts.status, 'creating')));
  const [now] = await shop.db.select().from(paymentAttempts).where(eq(paymentAttempts.id, opened.id));
  return answer(201, 'created', now ?? opened);
}
