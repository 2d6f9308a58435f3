import pg from 'pg';
import { runInPgTransaction } from '../../../packages/payonce/src/tx/pg.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

/** node-postgres: a `PoolClient` inside `BEGIN … COMMIT`. */
export const pgStack: StackAdapterDefinition = {
  databases: ['postgres'],
  make(target) {
    const pool = new pg.Pool({ connectionString: target.url, options: `-c search_path=${target.schema}`, max: 12 });
    return {
      async deliver(guard, key, handler, options) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const outcome = await runInPgTransaction(
            guard,
            client,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === client,
                async writeEffect(eventId) {
                  await tx.query('insert into stack_effects (event_id) values ($1)', [eventId]);
                },
                async joinedIds() {
                  const { rows } = await tx.query<[string, string]>({
                    text: 'select o.id, c.id from stack_orders o join stack_customers c on c.id = o.customer_id order by o.id',
                    rowMode: 'array',
                  });
                  return rows.map(([orderId, customerId]) => ({ orderId, customerId }));
                },
              };
              await handler(ops, payonceTx);
            },
            options,
          );
          await client.query('COMMIT');
          return outcome;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  },
};
