import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/**
 * TypeORM (DataSource type `postgres`, on node-postgres): `dataSource.transaction(async (manager) =>
 * runInTypeormTransaction(guard, manager, …))`; the business row is `manager.insert(Ledger, …)` on an `EntitySchema`
 * entity (TypeORM's InsertQueryBuilder underneath).
 */
export const typeormSide: StackSide = {
  label: 'TypeORM (postgres), dataSource.transaction + runInTypeormTransaction',
  backend: 'postgres',
  async open(_ns, work) {
    await import('reflect-metadata');
    const { DataSource, EntitySchema } = await import('typeorm');
    const { runInTypeormTransaction } = await import('payonce/tx/typeorm');
    const Ledger = new EntitySchema<{ eventId: string; amount: number }>({
      name: 'BenchLedger',
      tableName: 'bench_ledger',
      columns: {
        eventId: { name: 'event_id', type: String, primary: true },
        amount: { type: 'bigint' },
      },
    });
    const dataSource = await new DataSource({
      type: 'postgres',
      url: work.pool.connectionString,
      entities: [Ledger],
      poolSize: work.pool.max,
      extra: { options: work.pool.options },
    }).initialize();
    return {
      deliver: (id) =>
        dataSource.transaction((own) =>
          runInTypeormTransaction(
            work.guard,
            own,
            work.key(id),
            async (manager, _claim, payonceTx) => {
              await manager.insert(Ledger, { eventId: id, amount: LEDGER_AMOUNT });
              return await work.finish(payonceTx, id);
            },
            work.options(id),
          ),
        ),
      close: () => dataSource.destroy(),
    };
  },
};
