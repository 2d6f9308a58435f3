import type { FastifyInstance } from 'fastify';
import { type ClickMerchant, clickOnPayments, createClickMerchant } from 'payonce/click';
import { fastifyClick } from 'payonce/click/fastify';
import type { ServiceContext } from './service-context.js';

export { CLICK_PROVIDER } from 'payonce/click';

/** Routes of Click's SHOP API: the Prepare URL and the Complete URL of the Click merchant cabinet. */
export const CLICK_PATHS = Object.freeze(['/click/prepare', '/click/complete'] as const);

/**
 * The reference service's Click merchant: the `payonce/click` engine on the service's store, on top of the
 * service's `payments` (`clickOnPayments`), so the service's orders are what Click pays (`config.click`: service id
 * and secret keys): `merchant_trans_id` is the service order's id; the order must be payable by Click (UZS,
 * `draft`/`awaiting_payment`, no other provider's attempt: `payments.lockPayableOrderIn`), its amount in tiyin is
 * `amountMinor`; Prepare opens the order's attempt, Complete pays it once, a failed Complete cancels it.
 * @see docs/service.md "Payme, Click and Uzum"; docs/providers/click.md.
 */
export function serviceClickMerchant(ctx: ServiceContext): ClickMerchant {
  const config = ctx.config.click;
  if (config === null) throw new Error('serviceClickMerchant needs config.click');
  return createClickMerchant<unknown>({
    store: ctx.store,
    serviceId: config.serviceId,
    secretKey: config.secretKeys,
    clock: ctx.clock,
    ...clickOnPayments(ctx.payments),
    onError: (error) => ctx.logger.error({ err: error }, 'click call failed (answered -7)'),
  });
}
/** Registers `POST /click/prepare` and `POST /click/complete` when Click is configured; else nothing. */
export async function registerClick(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.click === null) return;
  await app.register(fastifyClick(serviceClickMerchant(ctx), { paths: CLICK_PATHS }));
}
