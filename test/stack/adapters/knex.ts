import createKnex, { type Knex } from 'knex';
import { runInKnexTransaction } from '../../../packages/payonce/src/tx/knex.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';
import type { StackTarget } from '../stack-target.js';

/** The application's knex instance on `target`: the pg, mysql2 or better-sqlite3 client. */
function appKnex(target: StackTarget): Knex {
  if (target.database === 'postgres') {
    return createKnex({
      client: 'pg',
      connection: { connectionString: target.url, options: `-c search_path=${target.schema}` },
      pool: { min: 0, max: 12 },
    });
  }
  if (target.database === 'mysql')
    return createKnex({ client: 'mysql2', connection: target.url, pool: { min: 0, max: 12 } });
  return createKnex({
    client: 'better-sqlite3',
    connection: { filename: target.url },
    useNullAsDefault: true,
    // Another connection (payonce's store, the kill -9 child) may hold the file's write lock for a while.
    pool: {
      afterCreate(connection: { pragma(source: string): unknown }, done: (error: Error | null, c: unknown) => void) {
        connection.pragma('busy_timeout = 20000');
        done(null, connection);
      },
    },
  });
}

/** Knex: the `trx` of `knex.transaction(async (trx) => …)`, on pg, mysql2 (MariaDB) and better-sqlite3. */
export const knexStack: StackAdapterDefinition = {
  databases: ['postgres', 'mysql', 'sqlite'],
  make(target) {
    const knex = appKnex(target);
    return {
      deliver(guard, key, handler, options) {
        return knex.transaction((own) =>
          runInKnexTransaction(
            guard,
            own,
            key,
            async (trx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: trx === own,
                async writeEffect(eventId) {
                  await trx('stack_effects').insert({ event_id: eventId });
                },
                joinedIds: () =>
                  trx('stack_orders as o')
                    .join('stack_customers as c', 'c.id', 'o.customer_id')
                    .select({ orderId: 'o.id', customerId: 'c.id' })
                    .orderBy('o.id'),
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      close: () => knex.destroy(),
    };
  },
};
