import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Req,
  UseInterceptors,
} from '@nestjs/common';
import { IdempotencyKeyInterceptor, type NestHttpRequest, nestStackTransaction } from 'payonce/nestjs';
import type { Order, Prisma } from '../generated/prisma/client.js';
import { type NewOrder, OrdersService, type OrderView, type PaymentAnswer } from './orders.service.js';

/** The customer a request is for: the `X-Customer-Id` header (a real shop reads its session). */
const customerOf = (request: NestHttpRequest): string => String(request.headers['x-customer-id'] ?? 'guest');

/** The body of `POST /orders`, checked: a positive amount in minor units and a 3-letter currency. */
function newOrderOf(body: unknown): NewOrder {
  const { amount, currency } = (body ?? {}) as { amount?: unknown; currency?: unknown };
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0 || typeof currency !== 'string') {
    throw new BadRequestException('amount must be a positive integer (minor units), currency 3 letters');
  }
  if (!/^[A-Za-z]{3}$/.test(currency)) throw new BadRequestException('currency must be 3 letters');
  return { amountMinor: amount as number, currency: currency.toUpperCase() };
}

/**
 * `POST /orders` `{ amount, currency }` (optional Idempotency-Key: the order row and the key's stored answer commit
 * in ONE Prisma transaction), `POST /orders/:id/pay` (Idempotency-Key required: a retry replays the first answer;
 * always 200, the outcome says `created`, `existing` or `already-paid`), `GET /orders/:id`.
 */
@Controller('orders')
export class OrdersController {
  constructor(@Inject(OrdersService) private readonly orders: OrdersService) {}

  @Post()
  @UseInterceptors(IdempotencyKeyInterceptor({ principal: customerOf, transaction: 'stack', requireKey: false }))
  create(@Req() request: NestHttpRequest, @Body() body: unknown): Promise<Order> {
    const order = newOrderOf(body);
    return this.orders.create(nestStackTransaction<Prisma.TransactionClient>(request), customerOf(request), order);
  }

  @Post(':id/pay')
  @HttpCode(200)
  @UseInterceptors(IdempotencyKeyInterceptor({ principal: customerOf }))
  async pay(@Req() request: NestHttpRequest, @Param('id') id: string): Promise<PaymentAnswer> {
    const answer = await this.orders.startPayment(customerOf(request), id);
    if (answer === null) throw new NotFoundException('no such order');
    return answer;
  }

  @Get(':id')
  async read(@Req() request: NestHttpRequest, @Param('id') id: string): Promise<OrderView> {
    const view = await this.orders.read(customerOf(request), id);
    if (view === null) throw new NotFoundException('no such order');
    return view;
  }
}
