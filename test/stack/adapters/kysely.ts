import Database from 'better-sqlite3';
import {
  CamelCasePlugin,
  type Dialect,
  Kysely,
  MysqlDialect,
  PostgresDialect,
  SqliteDialect,
  type Transaction,
} from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { runInKyselyTransaction } from '../../../packages/payonce/src/tx/kysely.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';
import type { StackTarget } from '../stack-target.js';

/** The application's own tables, named the application's way (its CamelCasePlugin maps them to snake_case). */
interface AppDatabase {
  stackEffects: { eventId: string };
  stackCustomers: { id: string; name: string };
  stackOrders: { id: string; customerId: string };
}

/** The application's own Kysely dialect object on `target`, and what closes its pool / connection. */
function appDialect(target: StackTarget): Dialect {
  if (target.database === 'postgres') {
    return new PostgresDialect({
      pool: new pg.Pool({ connectionString: target.url, options: `-c search_path=${target.schema}`, max: 12 }),
    });
  }
  if (target.database === 'mysql')
    return new MysqlDialect({ pool: createPool({ uri: target.url, connectionLimit: 12 }) });
  return new SqliteDialect({ database: new Database(target.url, { timeout: 20_000 }) });
}

/**
 * The application's own Kysely (its dialect object from kysely: PostgresDialect on a pg Pool, MysqlDialect on a mysql2
 * pool, SqliteDialect on a better-sqlite3 Database; with a CamelCasePlugin of its own): the `trx` of
 * `db.transaction().execute(async (trx) => …)`.
 */
export const kyselyStack: StackAdapterDefinition = {
  databases: ['postgres', 'mysql', 'sqlite'],
  make(target) {
    const db = new Kysely<AppDatabase>({ dialect: appDialect(target), plugins: [new CamelCasePlugin()] });
    return {
      deliver(guard, key, handler, options) {
        return db.transaction().execute((own: Transaction<AppDatabase>) =>
          runInKyselyTransaction(
            guard,
            own,
            key,
            async (trx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: trx === own,
                async writeEffect(eventId) {
                  await trx.insertInto('stackEffects').values({ eventId }).execute();
                },
                joinedIds: () =>
                  trx
                    .selectFrom('stackOrders as o')
                    .innerJoin('stackCustomers as c', 'c.id', 'o.customerId')
                    .select(['o.id as orderId', 'c.id as customerId'])
                    .orderBy('o.id')
                    .execute(),
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
      },
      close: () => db.destroy(),
    };
  },
};
