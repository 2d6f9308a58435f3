import type { FastifyInstance } from 'fastify';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { TelegramPayments } from 'payonce/internal/providers/telegram/telegram-payments.js';
import { customerOf } from './customer-id.js';
import { sendResponse } from './http-edge.js';
import { isObject } from './json-body.js';
import { XTR } from './order-money.js';
import type { ServiceContext } from './service-context.js';
import { ServiceError } from './service-error.js';
import { serviceProblem } from './service-problems.js';

/** A chat id as `sendInvoice` takes it: an integer (a user, group or `-100…` channel) or `@channelusername`. */
function chatIdOf(value: unknown): number | string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value !== 0) return value;
  if (typeof value === 'string' && /^@[A-Za-z0-9_]{5,32}$/.test(value)) return value;
  throw new ServiceError('INVALID_REQUEST_BODY', 'chatId must be a non-zero integer or "@channelusername"');
}

function textOf(value: unknown, fallback: string, max: number, name: string): string {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && value.length >= 1 && value.length <= max) return value;
  throw new ServiceError('INVALID_REQUEST_BODY', `${name} must be 1-${max} characters`);
}

/**
 * `POST /orders/:id/telegram-invoice` and `POST /orders/:id/telegram-refund`, scoped by `X-Customer-Id` (another
 * customer's order is 404 `ORDER_NOT_FOUND`, as for `GET /orders/:id`):
 * - invoice `{ chatId, title?, description? }`: the bot sends the order's invoice (`sendInvoice`, payload = the order
 *   id, Stars: only `XTR` orders, since the service holds no fiat payment provider token); 200 `{ sent: true,
 *   result }` with Telegram's message, or 200 `{ sent: false, status, description }` with what Telegram refused;
 * - refund `{ chargeId, userId? }` (`telegram_payment_charge_id` of the `successful_payment`; the payer recorded with
 *   the charge, `userId` optional and refused when another): one library call, `refundStarCharge`, enqueues the
 *   Stars refund once per charge (the outbox job calls `refundStarPayment` once and records the refund): the charge
 *   that paid the order, still paid, refunds the order; a Stars charge sent for this order that did not pay it (a
 *   double charge, another amount, a payment for the order once cancelled) is refunded on its own, the order kept as
 *   it is; 202 `{ refund: "requested" }`, the same for a repeat (also after the refund: nothing is queued again).
 * @throws {ServiceError} `INVALID_REQUEST_BODY` a bad field, a charge not sent for this order, a payer not of record.
 */
export function registerTelegramOrderRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  telegram: TelegramPayments<unknown>,
): void {
  const ownOrder = async (orderId: string, customer: string) => {
    const order = await ctx.payments.findOrder(orderId);
    return order !== null && order.principal === customer ? order : null;
  };
  app.post<{ Params: { id: string } }>('/orders/:id/telegram-invoice', async (request, reply) => {
    const body: unknown = request.body ?? {};
    if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'send { "chatId": … }');
    const order = await ownOrder(request.params.id, customerOf(request));
    if (order === null) {
      return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
    }
    if (order.currency !== XTR) {
      throw new ServiceError(
        'INVALID_REQUEST_BODY',
        `the bot invoices XTR (Telegram Stars) orders only, not ${order.currency}`,
      );
    }
    const chatId = chatIdOf(body.chatId);
    const title = textOf(body.title, `Order ${order.id}`.slice(0, 32), 32, 'title');
    const description = textOf(body.description, `Payment for order ${order.id}`.slice(0, 255), 255, 'description');
    const sent = await telegram.sendInvoice(chatId, order.id, { title, description });
    return reply.send(
      sent.ok
        ? { sent: true, result: sent.result }
        : { sent: false, status: sent.status, description: sent.description },
    );
  });
  app.post<{ Params: { id: string } }>('/orders/:id/telegram-refund', async (request, reply) => {
    const body: unknown = request.body ?? {};
    if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'send { "chargeId": …, "userId"?: … }');
    const order = await ownOrder(request.params.id, customerOf(request));
    if (order === null) {
      return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
    }
    const { userId, chargeId } = body;
    if (userId !== undefined && (typeof userId !== 'number' || !Number.isSafeInteger(userId) || userId <= 0)) {
      throw new ServiceError(
        'INVALID_REQUEST_BODY',
        'userId, when given, must be the payer’s positive integer user id',
      );
    }
    if (typeof chargeId !== 'string' || chargeId === '') {
      throw new ServiceError('INVALID_REQUEST_BODY', 'chargeId must be the telegram_payment_charge_id');
    }
    const payer = userId === undefined ? {} : { userId };
    try {
      await telegram.refundStarCharge({ orderId: order.id, chargeId, ...payer });
    } catch (error) {
      if (error instanceof InvalidOption) throw new ServiceError('INVALID_REQUEST_BODY', error.message);
      throw error;
    }
    return reply.code(202).send({ refund: 'requested' });
  });
}
