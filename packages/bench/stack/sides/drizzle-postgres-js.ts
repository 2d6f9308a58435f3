import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT, searchPathOf } from '../stack-side.js';

/**
 * Drizzle on postgres.js: `db.transaction(async (tx) => runInDrizzleTransaction(guard, tx, …))`; the business row is
 * `tx.insert(ledger)` through Drizzle's own query builder.
 */
export const drizzlePostgresJsSide: StackSide = {
  label: 'Drizzle on postgres.js, db.transaction + runInDrizzleTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { bigint, pgTable, varchar } = await import('drizzle-orm/pg-core');
    const { runInDrizzleTransaction } = await import('payonce/tx/drizzle');
    const ledger = pgTable('bench_ledger', {
      eventId: varchar('event_id', { length: 160 }).primaryKey(),
      amount: bigint('amount', { mode: 'number' }).notNull(),
    });
    const client = postgres(work.pool.connectionString, {
      max: work.pool.max,
      connection: { search_path: searchPathOf(work.pool) },
      onnotice: () => {},
    });
    const db = drizzle(client);
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
      close: () => client.end(),
    };
  },
};
