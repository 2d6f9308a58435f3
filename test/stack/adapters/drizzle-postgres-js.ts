import { eq } from 'drizzle-orm';
import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { runInDrizzleTransaction } from '../../../packages/payonce/src/tx/drizzle.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

const effects = pgTable('stack_effects', { eventId: text('event_id').notNull() });
const customers = pgTable('stack_customers', { id: text('id').primaryKey(), name: text('name').notNull() });
const orders = pgTable('stack_orders', {
  id: text('id').primaryKey(),
  customerId: text('customer_id').notNull(),
  paid: boolean('paid').notNull(),
});

/** Drizzle on postgres.js: the `tx` of `db.transaction(async (tx) => …)`. */
export const drizzlePostgresJsStack: StackAdapterDefinition = {
  databases: ['postgres'],
  make(target) {
    const client = postgres(target.url, {
      max: 12,
      onnotice: () => {},
      connection: { search_path: target.schema ?? 'public' },
    });
    const db = drizzle(client);
    return {
      deliver(guard, key, handler, options) {
        return db.transaction((own) =>
          runInDrizzleTransaction(
            guard,
            own,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === own,
                async writeEffect(eventId) {
                  await tx.insert(effects).values({ eventId });
                },
                joinedIds: () =>
                  tx
                    .select({ orderId: orders.id, customerId: customers.id })
                    .from(orders)
                    .innerJoin(customers, eq(customers.id, orders.customerId))
                    .orderBy(orders.id),
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      close: () => client.end(),
    };
  },
};
