import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT, searchPathOf } from '../stack-side.js';

/**
 * postgres.js: `sql.begin(async (tx) => runInPostgresJsTransaction(guard, tx, …))`; the business row is a tagged
 * template on that `tx`.
 */
export const postgresJsSide: StackSide = {
  label: 'postgres.js, sql.begin + runInPostgresJsTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    const { default: postgres } = await import('postgres');
    const { runInPostgresJsTransaction } = await import('payonce/tx/postgres-js');
    const sql = postgres(work.pool.connectionString, {
      max: work.pool.max,
      connection: { search_path: searchPathOf(work.pool) },
      onnotice: () => {},
    });
    return {
      deliver: (id) =>
        sql.begin((own) =>
          runInPostgresJsTransaction(
            work.guard,
            own,
            work.key(id),
            async (tx, _claim, payonceTx) => {
              await tx`insert into bench_ledger (event_id, amount) values (${id}, ${LEDGER_AMOUNT})`;
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          ),
        ),
      close: () => sql.end(),
    };
  },
};
