import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/**
 * Drizzle on node-postgres: `db.transaction(async (tx) => runInDrizzleTransaction(guard, tx, …))`; the business row
 * is `tx.insert(ledger)` through Drizzle's own query builder.
 */
export const drizzleSide: StackSide = {
  label: 'Drizzle on node-postgres, db.transaction + runInDrizzleTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { bigint, pgTable, varchar } = await import('drizzle-orm/pg-core');
    const { runInDrizzleTransaction } = await import('payonce/tx/drizzle');
    const ledger = pgTable('bench_ledger', {
      eventId: varchar('event_id', { length: 160 }).primaryKey(),
      amount: bigint('amount', { mode: 'number' }).notNull(),
    });
    const pool = new pg.Pool(work.pool);
    const db = drizzle(pool);
    return {
      deliver: (id) =>
        db.transaction((own) =>
          runInDrizzleTransaction(
            work.guard,
            own,
            work.key(id),
            async (tx, _claim, payonceTx) => {
              await tx.insert(ledger).values({ eventId: id, amount: LEDGER_AMOUNT });
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          ),
        ),
      close: () => pool.end(),
    };
  },
};
