import { eq } from 'drizzle-orm';
import { int, mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { drizzle } from 'drizzle-orm/mysql2';
import mysql from 'mysql2/promise';
import { runInDrizzleTransaction } from '../../../packages/payonce/src/tx/drizzle.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

const effects = mysqlTable('stack_effects', { eventId: varchar('event_id', { length: 64 }).notNull() });
const customers = mysqlTable('stack_customers', {
  id: varchar('id', { length: 64 }).primaryKey(),
  name: varchar('name', { length: 64 }).notNull(),
});
const orders = mysqlTable('stack_orders', {
  id: varchar('id', { length: 64 }).primaryKey(),
  customerId: varchar('customer_id', { length: 64 }).notNull(),
  paid: int('paid').notNull(),
});

/** Drizzle on mysql2 (MariaDB here): the `tx` of `db.transaction(async (tx) => …)`. */
export const drizzleMysql2Stack: StackAdapterDefinition = {
  databases: ['mysql'],
  make(target) {
    const pool = mysql.createPool({ uri: target.url, connectionLimit: 12 });
    const db = drizzle(pool);
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
      close: () => pool.end(),
    };
  },
};
