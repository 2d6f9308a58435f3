import 'reflect-metadata';
import { DataSource, type DataSourceOptions, EntitySchema } from 'typeorm';
import { runInTypeormTransaction, typeormTransactions } from '../../../packages/payonce/src/tx/typeorm.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';
import type { StackTarget } from '../stack-target.js';

// Entities as EntitySchema: the repository compiles without experimentalDecorators.
const Effect = new EntitySchema<{ eventId: string }>({
  name: 'StackEffect',
  tableName: 'stack_effects',
  columns: { eventId: { name: 'event_id', type: String, primary: true } },
});
const Customer = new EntitySchema<{ id: string; name: string }>({
  name: 'StackCustomer',
  tableName: 'stack_customers',
  columns: { id: { type: String, primary: true }, name: { type: String } },
});
const Order = new EntitySchema<{ id: string; customerId: string }>({
  name: 'StackOrder',
  tableName: 'stack_orders',
  columns: { id: { type: String, primary: true }, customerId: { name: 'customer_id', type: String } },
});

/** TypeORM's options for the suite's target: node-postgres, mysql2 (the `mysql` type, on MariaDB), better-sqlite3. */
export function typeormOptions(target: StackTarget): DataSourceOptions {
  const entities = [Effect, Customer, Order];
  if (target.database === 'postgres') {
    return {
      type: 'postgres',
      url: target.url,
      entities,
      poolSize: 12,
      extra: { options: `-c search_path=${target.schema}` },
    };
  }
  if (target.database === 'mysql') return { type: 'mysql', url: target.url, entities, poolSize: 12 };
  return { type: 'better-sqlite3', database: target.url, entities };
}

/**
 * TypeORM: the `EntityManager` of `dataSource.transaction(async (manager) => …)`, opened through
 * `typeormTransactions(dataSource)` (on better-sqlite3 it runs the data source's transactions one after another,
 * as TypeORM has one connection there).
 */
export const typeormStack: StackAdapterDefinition = {
  databases: ['postgres', 'mysql', 'sqlite'],
  async make(target) {
    const dataSource = await new DataSource(typeormOptions(target)).initialize();
    const transactions = typeormTransactions(dataSource);
    return {
      deliver(guard, key, handler, options) {
        return transactions.transaction((own) =>
          runInTypeormTransaction(
            guard,
            own,
            key,
            async (manager, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: manager === own,
                async writeEffect(eventId) {
                  await manager.insert(Effect, { eventId });
                },
                joinedIds: () =>
                  manager
                    .createQueryBuilder(Order, 'o')
                    .innerJoin('StackCustomer', 'c', 'c.id = o.customerId')
                    .select('o.id', 'orderId')
                    .addSelect('c.id', 'customerId')
                    .orderBy('o.id')
                    .getRawMany<{ orderId: string; customerId: string }>(),
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      close: () => dataSource.destroy(),
    };
  },
};
