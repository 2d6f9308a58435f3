import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { orderEvents, orders, paymentAttempts } from './schema.js';
import type { ShopTx } from './shop.js';

/** What a provider event says about a payment: the attempt (merchant reference), the money, the payment id. */
export interface PaymentReport {
  readonly eventId: string;
  readonly attemptId: string;
  readonly paymentId: string | null;
  readonly amountMinor: number | null;
  /** ISO-4217, upper case. */
  readonly currency: string | null;
  /** The order the event names (`metadata.order_id`), `null` when it names none. */
  readonly orderId: string | null;
}

/**
 * Applies a success report in `tx`: the attempt becomes `succeeded`, and the order moves to `paid` ONCE (only from
 * `new` or `awaiting_payment`, with a `paid` row in its history). A report about an unknown attempt, or whose amount,
 * currency, order or payment is not the attempt's, changes nothing. Resolves with the order id when THIS call moved it to paid.
 */
export async function markPaid(tx: ShopTx, report: PaymentReport): Promise<string | null> {
  const [attempt] = await tx.select().from(paymentAttempts).where(eq(paymentAttempts.id, report.attemptId));
  if (attempt === undefined) return null;
  if (report.amountMinor !== attempt.amountMinor || report.currency !== attempt.currency) return null;
  // An event naming another order, or another payment than the attempt's, is not about this attempt: ignore it.
  if (report.orderId !== null && report.orderId !== attempt.orderId) return null;
  if (report.paymentId !== null && attempt.providerPaymentId !== null && report.paymentId !== attempt.providerPaymentId)
    return null;
  await tx
    .update(paymentAttempts)
    .set({ status: 'succeeded', providerPaymentId: report.paymentId ?? attempt.providerPaymentId })
    .where(eq(paymentAttempts.id, attempt.id));
  const [paid] = await tx
    .update(orders)
    .set({ status: 'paid' })
    .where(and(eq(orders.id, attempt.orderId), inArray(orders.status, ['new', 'awaiting_payment'])))
    .returning({ id: orders.id });
  if (paid === undefined) return null; // paid already (another event about the same payment)
  await tx.insert(orderEvents).values({ id: randomUUID(), orderId: paid.id, kind: 'paid', eventId: report.eventId });
  return paid.id;
}
