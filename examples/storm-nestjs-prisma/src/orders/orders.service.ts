import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import type { Order, PaymentAttempt, Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma.service.js';
import { STRIPE } from '../stripe-client.js';

/** What `POST /orders` takes: money in integer minor units and an ISO-4217 currency. */
export interface NewOrder {
  readonly amountMinor: number;
  readonly currency: string;
}

/** What `POST /orders/:id/pay` answers: the attempt it names and whether it is new. */
export interface PaymentAnswer {
  readonly outcome: 'created' | 'existing' | 'already-paid';
  readonly attemptId: string | null;
  readonly attemptStatus: string | null;
  readonly providerPaymentId: string | null;
}

/** What a provider event says about a payment: the attempt (merchant reference), the money, the payment id. */
export interface PaymentReport {
  readonly eventId: string;
  readonly attemptId: string;
  readonly paymentId: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** The order the event names (`metadata.order_id`), `null` when it names none. */
  readonly orderId: string | null;
}

/** `GET /orders/:id`: the order, its attempts, and how many times it was paid and shipped. */
export interface OrderView extends Order {
  readonly attempts: PaymentAttempt[];
  readonly paidTransitions: number;
  readonly fulfilments: number;
}

const answerOf = (outcome: PaymentAnswer['outcome'], attempt?: PaymentAttempt): PaymentAnswer => ({
  outcome,
  attemptId: attempt?.id ?? null,
  attemptStatus: attempt?.status ?? null,
  providerPaymentId: attempt?.providerPaymentId ?? null,
});

/** A PaymentIntent's status as the attempt's. */
function attemptStatusOf(intent: Stripe.PaymentIntent): string {
  if (intent.status === 'succeeded') return 'succeeded';
  if (intent.status === 'canceled') return 'failed';
  if (intent.status === 'requires_action') return 'requires_action';
  return 'pending';
}

/** The shop's orders and payment attempts, on Prisma. */
@Injectable()
export class OrdersService {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(STRIPE) private readonly stripe: Stripe,
  ) {}

  /** Creates a `new` order in `tx` (the Idempotency-Key route's Prisma transaction). */
  create(tx: Prisma.TransactionClient, customer: string, order: NewOrder): Promise<Order> {
    const data = { id: `ord_${randomUUID()}`, customer, status: 'new', ...order };
    return tx.order.create({ data });
  }

  /** The customer's order with its attempts and counts, or `null`. */
  async read(customer: string, orderId: string): Promise<OrderView | null> {
    const order = await this.prisma.order.findFirst({ where: { id: orderId, customer } });
    if (order === null) return null;
    const [attempts, paidTransitions, fulfilments] = await Promise.all([
      this.prisma.paymentAttempt.findMany({ where: { orderId } }),
      this.prisma.orderEvent.count({ where: { orderId, kind: 'paid' } }),
      this.prisma.fulfilment.count({ where: { orderId } }),
    ]);
    return { ...order, attempts, paidTransitions, fulfilments };
  }

  /**
   * `POST /orders/:id/pay`: opens the order's payment attempt (or names the open one) with the order row locked, so
   * two tabs get ONE attempt; then asks Stripe for its PaymentIntent outside any transaction. `null`: no such order.
   */
  async startPayment(customer: string, orderId: string): Promise<PaymentAnswer | null> {
    const opened = await this.openAttempt(customer, orderId);
    if (opened === null || !('orderId' in opened)) return opened;
    const change = await this.createIntent(opened);
    await this.prisma.paymentAttempt.updateMany({ where: { id: opened.id, status: 'creating' }, data: change });
    const now = await this.prisma.paymentAttempt.findUnique({ where: { id: opened.id } });
    return answerOf('created', now ?? opened);
  }

  /** The attempt to create a PaymentIntent for, the answer when there is none to create, or `null` (no order). */
  private openAttempt(customer: string, orderId: string): Promise<PaymentAttempt | PaymentAnswer | null> {
    return this.prisma.$transaction(async (tx) => {
      const [order] = await tx.$queryRaw<{ status: string; amount_minor: number; currency: string }[]>`
        select status, amount_minor, currency from shop_orders where id = ${orderId} and customer = ${customer}
        for update`;
      if (order === undefined) return null;
      const open = await tx.paymentAttempt.findFirst({ where: { orderId, status: { not: 'failed' } } });
      // A paid order names the attempt that paid it: a second tab that arrives after the webhook sees the same one.
      if (order.status === 'paid' || order.status === 'fulfilled') return answerOf('already-paid', open ?? undefined);
      if (open !== null) return answerOf('existing', open);
      const attempt = await tx.paymentAttempt.create({
        data: {
          id: `pa_${randomUUID()}`,
          orderId,
          status: 'creating',
          amountMinor: order.amount_minor,
          currency: order.currency,
        },
      });
      await tx.order.update({ where: { id: orderId }, data: { status: 'awaiting_payment' } });
      return attempt;
    });
  }

  /**
   * The attempt's PaymentIntent, with the attempt id as Stripe's `Idempotency-Key` and `metadata.merchant_reference`.
   * A lost answer leaves the attempt `unknown`, never `failed`: the payment may exist, and its webhook will tell.
   */
  private async createIntent(attempt: PaymentAttempt): Promise<{ status: string; providerPaymentId?: string }> {
    try {
      const intent = await this.stripe.paymentIntents.create(
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
   * Applies a success report in `tx` (the webhook's Prisma transaction): the attempt becomes `succeeded`, and the
   * order moves to `paid` ONCE (only from `new` or `awaiting_payment`, with a `paid` history row). A report about an
   * unknown attempt, or another amount, currency, order or payment, changes nothing. Resolves with the order id when THIS call paid it.
   */
  async markPaid(tx: Prisma.TransactionClient, report: PaymentReport): Promise<string | null> {
    const attempt = await tx.paymentAttempt.findUnique({ where: { id: report.attemptId } });
    if (attempt === null) return null;
    if (report.amountMinor !== attempt.amountMinor || report.currency !== attempt.currency) return null;
    // An event naming another order, or another payment than the attempt's, is not about this attempt: ignore it.
    if (report.orderId !== null && report.orderId !== attempt.orderId) return null;
    const otherPayment = attempt.providerPaymentId !== null && report.paymentId !== attempt.providerPaymentId;
    if (report.paymentId !== null && otherPayment) return null;
    await tx.paymentAttempt.update({
      where: { id: attempt.id },
      data: { status: 'succeeded', providerPaymentId: report.paymentId ?? attempt.providerPaymentId },
    });
    const { count } = await tx.order.updateMany({
      where: { id: attempt.orderId, status: { in: ['new', 'awaiting_payment'] } },
      data: { status: 'paid' },
    });
    if (count !== 1) return null; // paid already (another event about the same payment)
    await tx.orderEvent.create({
      data: { id: randomUUID(), orderId: attempt.orderId, kind: 'paid', eventId: report.eventId },
    });
    return attempt.orderId;
  }
}
