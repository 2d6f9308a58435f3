import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/**
 * Knex with the `pg` client: `knex.transaction(async (trx) => runInKnexTransaction(guard, trx, …))`; the business
 * row is `trx('bench_ledger').insert(…)` through Knex's query builder.
 */
export const knexSide: StackSide = {
  label: 'Knex (client pg), knex.transaction + runInKnexTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { default: createKnex } = await import('knex');
    const { runInKnexTransaction } = await import('payonce/tx/knex');
    const knex = createKnex({
      client: 'pg',
      connection: { connectionString: work.pool.connectionString, options: work.pool.options },
      pool: { min: 0, max: work.pool.max },
    });
    return {
      deliver: (id) =>
        knex.transaction((own) =>
          runInKnexTransaction(
            work.guard,
            own,
            work.key(id),
            async (trx, _claim, payonceTx) => {
              await trx('bench_ledger').insert({ event_id: id, amount: LEDGER_AMOUNT });
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          ),
        ),
      close: () => knex.destroy(),
    };
  },
};
