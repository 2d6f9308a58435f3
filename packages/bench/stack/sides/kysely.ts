import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/** The application's own table, typed the application's way. */
interface AppDatabase {
  bench_ledger: { event_id: string; amount: number };
}

/**
 * The application's own Kysely (PostgresDialect on its own `pg.Pool`): `db.transaction().execute(async (trx) =>
 * runInKyselyTransaction(guard, trx, …))`; the business row is `trx.insertInto` through that Kysely.
 */
export const kyselySide: StackSide = {
  label: "the application's Kysely (PostgresDialect, pg Pool), db.transaction() + runInKyselyTransaction",
  backend: 'postgres',
  async open(_ns, work) {
    const { default: pg } = await import('pg');
    const { Kysely, PostgresDialect } = await import('kysely');
    const { runInKyselyTransaction } = await import('payonce/tx/kysely');
    const db = new Kysely<AppDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool(work.pool) }) });
    return {
      deliver: (id) =>
        db.transaction().execute((own) =>
          runInKyselyTransaction(
            work.guard,
            own,
            work.key(id),
            async (trx, _claim, payonceTx) => {
              await trx.insertInto('bench_ledger').values({ event_id: id, amount: LEDGER_AMOUNT }).execute();
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          ),
        ),
      close: () => db.destroy(),
    };
  },
};
