/**
 * Side C of the webhook-intake rows: the same delivery through an application of its own on its ORM's transaction
 * — fastify, Drizzle on node-postgres, payonce's webhook intake with a Stripe endpoint whose handler applies the
 * payment event in the Drizzle transaction (`transaction: drizzleTransactions(db)`, then
 * `payments.applyProviderEvent(event, payonceTx, { receiptHeld: true })`), as docs/your-stack.md and docs/payments.md
 * show. One Drizzle transaction per delivery: the intake's receipt, the transition, its job and journal rows commit
 * together; the delivery's journal row is written after it. No group commit: a transaction the application opens
 * is never shared (docs/design.md §11).
 */
import { paymentEventOf } from '@payonce/service/internal/payment-event-of.js';
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify, { type FastifyInstance } from 'fastify';
import { IdempotencyGuard } from 'payonce';
import { InMemoryPaymentProvider } from 'payonce/internal/payments/in-memory-payment-provider.js';
import { Payments } from 'payonce/internal/payments/payments.js';
import { PostgresStore } from 'payonce/postgres';
import { drizzleTransactions } from 'payonce/tx/drizzle';
import { createWebhookIntake, SqlDeliveryJournal, stripeProfile, stripeScheme } from 'payonce/webhooks';
import { fastifyWebhooks } from 'payonce/webhooks/fastify';
import pg from 'pg';
import { BENCH_PROVIDER } from './intake-fixture.js';

/** The app on `databaseUrl` (its `options` carry the namespace's `search_path`), with at most `max` connections. */
export async function drizzleIntakeApp(
  databaseUrl: string,
  secret: string,
  max?: number,
): Promise<{ readonly app: FastifyInstance; close(): Promise<void> }> {
  const poolConfig = { connectionString: databaseUrl, ...(max === undefined ? {} : { max }) };
  const store = await PostgresStore.connect(poolConfig);
  const pool = new pg.Pool(poolConfig);
  const db = drizzle(pool);
  const payments = new Payments(store, { provider: new InMemoryPaymentProvider({ name: BENCH_PROVIDER }) });
  const intake = createWebhookIntake({
    guard: new IdempotencyGuard(store),
    journal: new SqlDeliveryJournal(store),
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: [secret] }),
        transaction: drizzleTransactions(db),
        handler: async (event, { payonceTx }) => {
          const paymentEvent = paymentEventOf(event, BENCH_PROVIDER);
          if (paymentEvent === null) return { received: true, ignored: true };
          const result = await payments.applyProviderEvent(paymentEvent, payonceTx, { receiptHeld: true });
          return { received: true, decision: result.decision };
        },
      },
    },
  });
  const app = Fastify({ logger: false });
  await app.register(fastifyWebhooks(intake));
  return {
    app,
    async close() {
      await app.close();
      await pool.end();
      await store.close();
    },
  };
}
