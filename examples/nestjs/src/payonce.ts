import type { PayonceModuleOptions } from 'payonce/nestjs';
import { Outbox } from 'payonce/outbox';
import { PostgresStore } from 'payonce/postgres';
import { prismaTransactions } from 'payonce/tx/prisma';
import { stripeProfile, stripeScheme, webhookEndpoint } from 'payonce/webhooks';
import type { ShopConfig } from './config.js';
import type { Prisma } from './generated/prisma/client.js';
import { FULFIL_TOPIC } from './orders/fulfilment.js';
import type { OrdersService } from './orders/orders.service.js';
import type { PrismaService } from './prisma.service.js';

/**
 * payonce for the shop, made by `PayonceModule.forRootAsync`: its tables in the shop's database and schema, the
 * Idempotency-Key routes and the Stripe webhook in Prisma transactions (`prismaTransactions(prisma)`).
 */
export async function payonceOptions(
  config: ShopConfig,
  prisma: PrismaService,
  orders: OrdersService,
): Promise<PayonceModuleOptions> {
  const store = await PostgresStore.connect({
    connectionString: config.databaseUrl,
    options: `-c search_path=${config.schema}`,
  });
  await store.migrate();
  const outbox = new Outbox(store);
  const transactions = prismaTransactions<Prisma.TransactionClient>(prisma);

  /**
   * A paid Checkout Session marks its order paid and queues its fulfilment: one Prisma transaction, once. `tx` is
   * Prisma's transaction client (from the opener), `payonceTx` the store's `Transaction` (from `store`, the second
   * argument of `webhookEndpoint`, read only for its type).
   */
  const stripe = webhookEndpoint(
    {
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: [config.stripeWebhookSecret] }),
      transaction: transactions,
      handler: async (event, { tx, payonceTx }) => {
        const orderId = event.merchantReference;
        if (event.eventType !== 'checkout.session.completed' || orderId === null) return;
        if (!(await orders.markPaid(tx, orderId, event.eventId ?? ''))) return;
        await outbox.enqueueOnce(payonceTx, FULFIL_TOPIC, `order:${orderId}`, { orderId });
      },
    },
    store,
  );

  return {
    store,
    stackTransactions: transactions,
    webhooks: { endpoints: { stripe } },
  };
}
