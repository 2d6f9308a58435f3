import type { FastifyInstance } from 'fastify';
import {
  createPaymeMerchant,
  type PaymeMerchant,
  paymeOnPayments,
  type StoredPaymeKeys,
  storedPaymeKeys,
} from 'payonce/payme';
import { fastifyPayme } from 'payonce/payme/fastify';
import type { ServiceContext } from './service-context.js';

export { PAYME_CURRENCY, PAYME_PROVIDER } from 'payonce/payme';

/** Route of the Payme Merchant API endpoint. */
export const PAYME_PATH = '/payme';

/**
 * The reference service's Payme merchant: the `payonce/payme` engine on the service's store, on top of the
 * service's `payments` (`paymeOnPayments`), so the service's orders are what Payme pays:
 * - `findOrder`: the account field `config.paymeAccountField` names a service order (locked in the call's
 *   transaction) in `UZS`, `draft` or `awaiting_payment`, with no active attempt of another provider; its amount
 *   in tiyin is the order's `amountMinor`. Anything else is `null` (Payme gets -31050 with the field's name).
 * - `onCreated`: opens the order's attempt of provider `payme`, payment id = Payme's id (`openProviderAttempt`), so
 *   a checkout cannot open a second payment beside it.
 * - `onPerformed`: applies `succeeded` through `payments.applyProviderEvent` in the perform's transaction: the order
 *   becomes paid and its fulfilment job is enqueued once, as a Stripe webhook's success does.
 * - `onCancelled`: state -1 applies `cancelled` (the attempt ends; the order is payable again); state -2 applies
 *   `refunded` (the order is refunded and its refund job enqueued).
 * Keys live in `payonce_payme_keys` (`storedPaymeKeys`), seeded with `config.paymeKeys`, so `ChangePassword` holds
 * across replicas and restarts.
 * @see docs/service.md "Payme"; docs/providers/payme.md.
 */
export function servicePaymeMerchant(
  ctx: ServiceContext,
  keys: StoredPaymeKeys = storedPaymeKeys(ctx.store, { initialKeys: ctx.config.paymeKeys, clock: ctx.clock }),
): PaymeMerchant {
  return createPaymeMerchant<unknown>({
    store: ctx.store,
    keyProvider: keys,
    clock: ctx.clock,
    ...paymeOnPayments(ctx.payments, { accountField: ctx.config.paymeAccountField }),
    onError: (error) => ctx.logger.error({ err: error }, 'payme call failed (answered -32400)'),
  });
}

/** Registers `POST /payme` (the engine's Fastify glue) when a Payme key is configured; else nothing. */
export async function registerPayme(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  if (ctx.config.paymeKeys.length === 0) return;
  const keys = storedPaymeKeys(ctx.store, { initialKeys: ctx.config.paymeKeys, clock: ctx.clock });
  await warnIfKeyIgnored(ctx, keys);
  await app.register(fastifyPayme(servicePaymeMerchant(ctx, keys), { path: PAYME_PATH }));
}

/**
 * Warns at start when `payonce_payme_keys` already holds another key than the one configured (a ChangePassword,
 * or an earlier `--payme-key`): the stored key authorises Payme's calls and the configured one gets -32504, which
 * is what happens when a shop moves from its test key to its live key. Never logs a key. A database that cannot
 * be read now is left to the readiness checks (the service still starts).
 */
async function warnIfKeyIgnored(ctx: ServiceContext, keys: StoredPaymeKeys): Promise<void> {
  try {
    if (!(await keys.initialKeysIgnored())) return;
  } catch {
    return;
  }
  ctx.logger.warn(
    "payme: payonce_payme_keys holds another key than --payme-key / PAYONCE_PAYME_KEY (set by Payme's ChangePassword " +
      'or an earlier start); the stored key is used and calls signed with the configured one get -32504. To use the ' +
      'configured key, change it through the Payme cabinet (ChangePassword) or delete the row of payonce_payme_keys.',
  );
}
