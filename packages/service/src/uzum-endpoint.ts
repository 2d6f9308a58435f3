import type { FastifyInstance } from 'fastify';
import { createUzumMerchant, type UzumMerchant, uzumOnPayments } from 'payonce/uzum';
import { fastifyUzum } from 'payonce/uzum/fastify';
import type { ServiceContext } from './service-context.js';

export { UZUM_PROVIDER } from 'payonce/uzum';

/** Path prefix of the five Uzum Bank webhooks (`/uzum/check`, `/uzum/create`, …). */
export const UZUM_PREFIX = '/uzum';

/** The `params` key naming the service order (`params: { "account": "<order id>" }`, Uzum's own examples' key). */
export const UZUM_ORDER_PARAM = 'account';

/**
 * The reference service's Uzum merchant: the `payonce/uzum` engine on the service's store, on top of the service's
 * `payments` (`uzumOnPayments`), so the service's orders are what Uzum Bank pays (`config.uzum`: login, password,
 * service id): `params.account` ({@link UZUM_ORDER_PARAM}) is the service order's id; the order must be payable by
 * Uzum (UZS, `draft`/`awaiting_payment`, no other provider's attempt: `payments.lockPayableOrderIn`), its amount in
 * tiyin is `amountMinor`; /create opens the order's attempt, /confirm pays it once, /reverse cancels or refunds it.
 * @see docs/service.md "Payme, Click and Uzum"; docs/providers/uzum.md.
 */
export function serviceUzumMerchant(ctx: ServiceContext): UzumMerchant {
  const config = ctx.config.uzum;
  if (config === null) throw new Error('serviceUzumMerchant needs config.uzum');
  return createUzumMerchant<unknown>({
    store: ctx.store,
    login: config.login,
    password: config.password,
    serviceId: config.serviceId,
    clock: ctx.clock,
    ...uzumOnPayments(ctx.payments, { orderParam: UZUM_ORDER_PARAM }),
    onError: (error) => ctx.logger.error({ err: error }, 'uzum call failed (answered 99999)'),
  });
}
/** Registers `POST /uzum/check|create|confirm|reverse|status` when Uzum is configured; else nothing. */
export async function registerUzum(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.uzum === null) return;
  await app.register(fastifyUzum(serviceUzumMerchant(ctx), { prefix: UZUM_PREFIX }));
}
