import { BadRequestException, Body, Controller, Post, Req, UseInterceptors } from '@nestjs/common';
import { IdempotencyKeyInterceptor, type NestHttpRequest, nestStackTransaction } from 'payonce/nestjs';
import type { Order, Prisma } from '../generated/prisma/client.js';
import { type NewOrder, OrdersService } from './orders.service.js';

/**
 * `POST /orders` with an `Idempotency-Key`: the order row, the key's receipt and the stored response commit in ONE
 * Prisma transaction; the same key again gets the stored response, never a second order.
 */
@Controller('orders')
@UseInterceptors(
  IdempotencyKeyInterceptor({
    principal: (request: NestHttpRequest) => String(request.headers['x-account-id'] ?? 'anonymous'),
    transaction: 'stack', // the module's stackTransactions: prismaTransactions(prisma)
  }),
)
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  create(@Req() request: NestHttpRequest, @Body() body: NewOrder): Promise<Order> {
    if (
      typeof body?.item !== 'string' ||
      !Number.isSafeInteger(body.amountMinor) ||
      typeof body.currency !== 'string'
    ) {
      throw new BadRequestException('item (string), amountMinor (integer) and currency (string) are required');
    }
    const tx = nestStackTransaction<Prisma.TransactionClient>(request);
    return this.orders.create(tx, body);
  }
}
