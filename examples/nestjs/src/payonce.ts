import type { Transaction } from 'kysely';
import type { PayonceModuleOptions } from 'payonce/nestjs';
import { Outbox } from 'payonce/outbox';
import { PostgresStore, type ReceiptsDatabase } from 'payonce/postgres';
import { prismaTransactions } from 'payonce/tx/prisma';
import {
  type ProviderEvent,
  type StackWebhookContext,
  stripeProfile,
  stripeScheme,
  webhookEndpoint,
} from 'payonce/webhooks';
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

  /** A paid Checkout Session marks its order paid and queues its fulfilment: one Prisma transaction, once. */
  async function onStripeEvent(
    event: ProviderEvent,
    { tx, payonceTx }: StackWebhookContext<Prisma.TransactionClient, Transaction<ReceiptsDatabase>>,
  ): Promise<void> {
    const orderId = event.merchantReference;
    if (event.eventType !== 'checkout.session.completed' || orderId === null) return;
    if (!(await orders.markPaid(tx, orderId, event.eventId ?? ''))) return;
    await outbox.enqueueOnce(payonceTx, FULFIL_TOPIC, `order:${orderId}`, { orderId });
  }

  return {
    store,
    stackTransactions: transactions,
    webhooks: {
      endpoints: {
        stripe: webhookEndpoint({
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [config.stripeWebhookSecret] }),
          transaction: transactions,
          handler: onStripeEvent,
        }),
      },
    },
  };
}
