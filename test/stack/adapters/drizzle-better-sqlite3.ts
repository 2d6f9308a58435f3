import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { drizzleTransactions, runInDrizzleTransaction } from '../../../packages/payonce/src/tx/drizzle.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

const effects = sqliteTable('stack_effects', { eventId: text('event_id').notNull() });
const customers = sqliteTable('stack_customers', { id: text('id').primaryKey(), name: text('name').notNull() });
const orders = sqliteTable('stack_orders', {
  id: text('id').primaryKey(),
  customerId: text('customer_id').notNull(),
  paid: integer('paid').notNull(),
});

/**
 * Drizzle on better-sqlite3: its `db.transaction` is synchronous, so the transaction is `begin immediate` …
 * `commit` on the db's one connection, opened by `drizzleTransactions(db)` (one at a time), and the handler gets
 * the `db` itself.
 */
export const drizzleBetterSqlite3Stack: StackAdapterDefinition = {
  databases: ['sqlite'],
  make(target) {
    const client = new Database(target.url);
    const db = drizzle(client);
    const transactions = drizzleTransactions(db);
    return {
      deliver(guard, key, handler, options) {
        return transactions.transaction((own) =>
          runInDrizzleTransaction(
            guard,
            own,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === db,
                async writeEffect(eventId) {
                  await tx.insert(effects).values({ eventId });
                },
                joinedIds: async () =>
                  tx
                    .select({ orderId: orders.id, customerId: customers.id })
                    .from(orders)
                    .innerJoin(customers, eq(customers.id, orders.customerId))
                    .orderBy(orders.id)
                    .all(),
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      close: async () => {
        client.close();
      },
    };
  },
};
