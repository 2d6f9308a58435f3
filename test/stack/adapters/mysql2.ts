import mysql from 'mysql2/promise';
import { runInMysql2Transaction } from '../../../packages/payonce/src/tx/mysql2.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

/** mysql2/promise: a `PoolConnection` after `beginTransaction()`. */
export const mysql2Stack: StackAdapterDefinition = {
  databases: ['mysql'],
  make(target) {
    const pool = mysql.createPool({ uri: target.url, connectionLimit: 12 });
    return {
      async deliver(guard, key, handler, options) {
        const connection = await pool.getConnection();
        try {
          await connection.beginTransaction();
          const outcome = await runInMysql2Transaction(
            guard,
            connection,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === connection,
                async writeEffect(eventId) {
                  await tx.query('insert into stack_effects (event_id) values (?)', [eventId]);
                },
                async joinedIds() {
                  // `rowsAsArray`: rows as arrays, so the two `id` columns stay apart.
                  const [rows] = await tx.query<[string, string][] & mysql.RowDataPacket[]>({
                    sql: 'select o.id, c.id from stack_orders o join stack_customers c on c.id = o.customer_id order by o.id',
                    rowsAsArray: true,
                  });
                  return rows.map(([orderId, customerId]) => ({ orderId, customerId }));
                },
              };
              await handler(ops, payonceTx);
            },
            options,
          );
          await connection.commit();
          return outcome;
        } catch (error) {
          await connection.rollback();
          throw error;
        } finally {
          connection.release();
        }
      },
      close: () => pool.end(),
    };
  },
};
