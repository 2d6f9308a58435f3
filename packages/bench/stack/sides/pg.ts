import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/**
 * node-postgres: a `PoolClient` of the application's `pg.Pool`, `BEGIN` … `runInPgTransaction` … `COMMIT` as
 * docs/your-stack.md shows it; the business row is `client.query` on that client.
 */
export const pgSide: StackSide = {
  label: 'node-postgres PoolClient (BEGIN/COMMIT by hand), runInPgTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { default: pg } = await import('pg');
    const { runInPgTransaction } = await import('payonce/tx/pg');
    const pool = new pg.Pool(work.pool);
    return {
      async deliver(id) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const outcome = await runInPgTransaction(
            work.guard,
            client,
            work.key(id),
            async (client, _claim, payonceTx) => {
              await client.query('insert into bench_ledger (event_id, amount) values ($1, $2)', [id, LEDGER_AMOUNT]);
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          );
          await client.query('COMMIT');
          return outcome;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  },
};
