import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { fastifyIdempotencyKey, fastifyTransaction } from 'payonce/http/fastify';
import type { CheckoutResult } from 'payonce/internal/payments/payments.js';
import { customerOf } from './customer-id.js';
import { databaseReachable } from './database-reachable.js';
import { failureAnswer, sendResponse } from './http-edge.js';
import { isObject, lenientJson } from './json-body.js';
import { orderIdOf } from './order-id.js';
import { orderMoneyOf, UZS } from './order-money.js';
import { recordOrderTrace } from './order-trace.js';
import { attemptJson, orderJson, orderView } from './order-view.js';
import type { ServiceContext } from './service-context.js';
import { ServiceError } from './service-error.js';
import type { ServiceOptions } from './service-options.js';
import { serviceProblem } from './service-problems.js';
import type { ServiceRuntime } from './service-runtime.js';

const CHECKOUT_ROUTE = '/orders/:id/checkout';

/** The 409 `PROVIDER_NOT_CONFIGURED` of a Stripe-shaped route (`what`) on a service without `providerUrl`. */
export function providerNotConfigured(what: string): ServiceError {
  return new ServiceError(
    'PROVIDER_NOT_CONFIGURED',
    `${what} needs the Stripe-shaped provider (--provider-url); this service pays orders through Payme, Click or Uzum`,
  );
}

/** `POST /orders/:id/checkout` (Idempotency-Key required, default mode: checkout calls the provider). */
function registerCheckout(
  app: FastifyInstance,
  ctx: ServiceContext,
  runtime: ServiceRuntime,
  checkout: (c: ServiceContext, id: string, who: string) => Promise<CheckoutResult>,
): void {
  app.post<{ Params: { id: string } }>(CHECKOUT_ROUTE, async (request, reply) => {
    const body = request.body === undefined ? {} : request.body;
    if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'the checkout body is empty or {}');
    const orderId = request.params.id;
    let result: CheckoutResult;
    try {
      result = await checkout(ctx, orderId, customerOf(request));
    } catch (error) {
      runtime.metrics.checkouts.inc({ outcome: 'error' });
      throw error;
    }
    if (result.kind === 'already-paid') {
      // The order and its paying attempt as read together under the order lock: a refund that commits after that
      // transaction must not turn this answer into "already-paid" with a `refunded` order (stored and replayed).
      runtime.metrics.checkouts.inc({ outcome: 'already-paid' });
      const attempt = result.paidAttempt && attemptJson(result.paidAttempt);
      return reply.code(200).send({ outcome: 'already-paid', order: orderJson(result.order), attempt });
    }
    const traceId = result.created ? (runtime.tracing?.activeTraceId() ?? null) : null;
    // The checkout that created the attempt is the trace its webhook and fulfilment join: the order shows it.
    if (traceId !== null) await recordOrderTrace(ctx.store, ctx.store.db, orderId, traceId, ctx.clock.now());
    const outcome = result.created ? 'created' : 'existing';
    runtime.metrics.checkouts.inc({ outcome });
    // The order as the checkout's last transaction left it, beside its attempt from the same one: no read again.
    return reply
      .code(result.created ? 201 : 200)
      .send({ outcome, order: orderJson(result.order), attempt: attemptJson(result.attempt) });
  });
}

/**
 * `POST /orders`, `POST /orders/:id/checkout`, `GET /orders/:id` in one scope with Idempotency-Key, JSON bodies
 * read by `lenientJson` and the customer named by `X-Customer-Id` (docs/service.md). With tracing on
 * (`runtime.tracing`), the trace id of the request that created the order, then of the checkout that created an
 * attempt, is stored with the order (`recordOrderTrace`; the creation's in the same transaction as the order).
 */
export async function registerOrders(
  app: FastifyInstance,
  ctx: ServiceContext,
  runtime: ServiceRuntime,
  options: ServiceOptions,
) {
  const checkout =
    options.overrides?.checkout ?? ((c: ServiceContext, id: string, who: string) => c.payments.openCheckout(id, who));
  await app.register(async (scope) => {
    lenientJson(scope);
    scope.setErrorHandler(async (error, request, reply) => {
      const where = { url: request.url, what: 'request failed' };
      return sendResponse(reply, await failureAnswer(error, () => databaseReachable(ctx), ctx.logger, where));
    });
    scope.addHook('onRequest', async (request) => {
      customerOf(request);
    });
    // POST /orders in the one-commit mode: the order row and its Idempotency-Key receipt commit in ONE
    // transaction, so a process killed between the two leaves neither and the retry creates the order once.
    // Checkout calls the provider and runs transactions of its own: default mode, own scope.
    await scope.register(async (orders) => {
      await orders.register(
        fastifyIdempotencyKey({
          guard: ctx.httpGuard,
          principal: customerOf,
          transaction: true,
          requireKey: () => false,
        }),
      );
      orders.post('/orders', async (request, reply) => {
        const body = request.body === undefined ? {} : request.body;
        if (!isObject(body)) throw new ServiceError('INVALID_REQUEST_BODY', 'send { "amountMinor": …, "currency": … }');
        const tx = fastifyTransaction<Transaction<unknown>>(request);
        // Without the Stripe-shaped provider only Payme, Click and Uzum pay: UZS is the one currency they charge.
        // With a Telegram bot, XTR (Telegram Stars) orders too: the bot's invoices are paid in Stars.
        const money = orderMoneyOf(body, ctx.checkoutAvailable ? undefined : UZS, ctx.config.telegram !== null);
        const id = orderIdOf(body);
        const order = await ctx.payments.createOrder(customerOf(request), money, tx, id === null ? {} : { id });
        const traceId = runtime.tracing?.activeTraceId() ?? null;
        if (traceId !== null) await recordOrderTrace(ctx.store, tx, order.id, traceId, ctx.clock.now());
        return reply.code(201).send({ order: orderJson(order) });
      });
    });
    if (!ctx.checkoutAvailable && options.overrides?.checkout === undefined) {
      // No Stripe-shaped provider: refused before any key, attempt or provider call (Payme, Click, Uzum pay).
      scope.post(CHECKOUT_ROUTE, async () => {
        throw providerNotConfigured('checkout');
      });
    } else {
      await scope.register(async (checkouts) => {
        await checkouts.register(
          fastifyIdempotencyKey({
            guard: ctx.httpGuard,
            principal: customerOf,
            requireKey: (route) => route.route === CHECKOUT_ROUTE,
          }),
        );
        registerCheckout(checkouts, ctx, runtime, checkout);
      });
    }

    scope.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
      const view = await orderView(ctx, request.params.id, customerOf(request));
      if (!view) return sendResponse(reply, serviceProblem('ORDER_NOT_FOUND', `order ${request.params.id} not found`));
      return reply.send(view);
    });
  });
}
