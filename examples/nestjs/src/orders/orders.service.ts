import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Order, Prisma } from '../generated/prisma/client.js';

/** What `POST /orders` takes. */
export interface NewOrder {
  readonly item: string;
  readonly amountMinor: number;
  readonly currency: string;
}

/** The shop's orders, written in the Prisma transaction the caller runs in. */
@Injectable()
export class OrdersService {
  /** Creates a pending order. */
  create(tx: Prisma.TransactionClient, order: NewOrder): Promise<Order> {
    const { item, amountMinor, currency } = order;
    return tx.order.create({ data: { id: `ord_${randomUUID()}`, item, amountMinor, currency } });
  }

  /** Marks a pending order paid by a payment event; false when there is no such pending order. */
  async markPaid(tx: Prisma.TransactionClient, orderId: string, eventId: string): Promise<boolean> {
    const { count } = await tx.order.updateMany({
      where: { id: orderId, status: 'pending' },
      data: { status: 'paid', paidBy: eventId },
    });
    return count === 1;
  }
}
