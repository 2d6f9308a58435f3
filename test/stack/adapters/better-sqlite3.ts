import Database from 'better-sqlite3';
import {
  betterSqlite3Transactions,
  runInBetterSqlite3Transaction,
} from '../../../packages/payonce/src/tx/better-sqlite3.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

/**
 * better-sqlite3: one `Database`, each delivery in `BEGIN IMMEDIATE … COMMIT` opened by `betterSqlite3Transactions`,
 * which queues the transactions of the connection (the ×10 parallel case goes through that queue).
 */
export const betterSqlite3Stack: StackAdapterDefinition = {
  databases: ['sqlite'],
  make(target) {
    const db = new Database(target.url, { timeout: 5_000 });
    const transactions = betterSqlite3Transactions(db);
    return {
      deliver(guard, key, handler, options) {
        return transactions.transaction((own) =>
          runInBetterSqlite3Transaction(
            guard,
            own,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === db,
                async writeEffect(eventId) {
                  tx.prepare('insert into stack_effects (event_id) values (?)').run(eventId);
                },
                async joinedIds() {
                  // `.raw()`: rows as arrays, so the two `id` columns stay apart.
                  const rows = tx
                    .prepare<[], [string, string]>(
                      'select o.id, c.id from stack_orders o join stack_customers c on c.id = o.customer_id order by o.id',
                    )
                    .raw()
                    .all();
                  return rows.map(([orderId, customerId]) => ({ orderId, customerId }));
                },
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      async close() {
        db.close();
      },
    };
  },
};
