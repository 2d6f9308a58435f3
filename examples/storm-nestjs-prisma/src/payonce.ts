import type { PayonceModuleOptions } from 'payonce/nestjs';
import { Outbox } from 'payonce/outbox';
import { PostgresStore } from 'payonce/postgres';
import { prismaTransactions } from 'payonce/tx/prisma';
import { SqlDeliveryJournal, stripeProfile, stripeScheme, webhookEndpoint } from 'payonce/webhooks';
import type { ShopConfig } from './config.js';
import type { Prisma } from './generated/prisma/client.js';
import { FULFIL_TOPIC } from './orders/fulfilment.js';
import type { OrdersService } from './orders/orders.service.js';
import type { PrismaService } from './prisma.service.js';

/** The Stripe events that announce a successful payment (two event ids for one payment). */
const SUCCESS = new Set(['payment_intent.succeeded', 'charge.succeeded']);

/** The order a Stripe event names (`data.object.metadata.order_id`, set at checkout), `null` when none. */
function orderIdOf(payload: unknown): string | null {
  const id = (payload as { data?: { object?: { metadata?: { order_id?: unknown } } } } | null)?.data?.object?.metadata
    ?.order_id;
  return typeof id === 'string' ? id : null;
}

/**
 * payonce for the shop, made by `PayonceModule.forRootAsync`: its tables in the shop's database and schema, the
 * Idempotency-Key routes in Prisma transactions (`stackTransactions`), and the Stripe webhook: the event's receipt,
 * the order moved to paid once and the fulfilment job (`outbox.enqueueOnce`) in ONE Prisma transaction; a
 * redelivered event is answered from its receipt without running the handler again.
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
  await store.migrate({ only: ['receipts', 'http', 'outbox', 'journal'] }); // or `payonce migrate` at deploy
  const outbox = new Outbox(store);
  const transactions = prismaTransactions<Prisma.TransactionClient>(prisma);
  const stripe = webhookEndpoint(
    {
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: [config.stripeWebhookSecret] }),
      transaction: transactions,
      handler: async (event, { tx, payonceTx }) => {
        if (!SUCCESS.has(event.eventType) || event.merchantReference === null || event.eventId === null) return;
        const orderId = await orders.markPaid(tx, {
          eventId: event.eventId,
          attemptId: event.merchantReference,
          paymentId: event.paymentId,
          amountMinor: event.amountMinor,
          currency: event.currency,
          orderId: orderIdOf(event.payload),
        });
        if (orderId !== null) await outbox.enqueueOnce(payonceTx, FULFIL_TOPIC, `order:${orderId}`, { orderId });
      },
    },
    store,
  );
  return {
    store,
    stackTransactions: transactions,
    webhooks: { journal: new SqlDeliveryJournal(store), endpoints: { stripe } },
  };
}
