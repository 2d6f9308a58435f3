import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import type { Transaction } from 'kysely';
import pg from 'pg';
import type { RunOptions } from '../../packages/payonce/src/core/guard-types.js';
import type { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Outcome } from '../../packages/payonce/src/core/outcome.js';
import type { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import { runInDrizzleTransaction } from '../../packages/payonce/src/tx/drizzle.js';
import { runInPgTransaction } from '../../packages/payonce/src/tx/pg.js';
import { POSTGRES_TEST_URL } from '../contract/backends/postgres.js';

/** The business tables of the suite, created with SQL in the test schema. */
export const BUSINESS_TABLES = [
  'create table stack_customers (id text primary key, name text not null)',
  'create table stack_orders (id text primary key, customer_id text not null references stack_customers (id), paid boolean not null default false)',
  'create table stack_effects (event_id text not null)',
];

const effects = pgTable('stack_effects', { eventId: text('event_id').notNull() });
const customers = pgTable('stack_customers', { id: text('id').primaryKey(), name: text('name').notNull() });
const orders = pgTable('stack_orders', {
  id: text('id').primaryKey(),
  customerId: text('customer_id').notNull(),
  paid: boolean('paid').notNull(),
});

/** What the suite's handler does with the stack's own transaction object. */
export interface StackOps {
  /** The business write: one `stack_effects` row, through the stack's own API. */
  writeEffect(eventId: string): Promise<void>;
  /** `stack_orders` joined with `stack_customers` (both have an `id`), through the stack's own API. */
  joinedIds(): Promise<{ orderId: string; customerId: string }[]>;
  /** True when the handler's `tx` is the stack's own transaction object. */
  readonly isOwn: boolean;
}

/** The handler of the suite: the stack's operations and the same transaction as payonce's Kysely view. */
export type StackHandler = (ops: StackOps, payonceTx: Transaction<ReceiptsDatabase>) => Promise<void>;

/** One stack under test, on one PostgreSQL schema. */
export interface StackAdapter {
  readonly name: string;
  /** One delivery in ONE transaction of the stack: commits when `handler` resolves, rolls back when it throws. */
  deliver(
    guard: IdempotencyGuard<PostgresStore>,
    key: RequestKey,
    handler: StackHandler,
    options?: RunOptions,
  ): Promise<Outcome>;
  close(): Promise<void>;
}

function poolOn(schema: string): pg.Pool {
  return new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${schema}`, max: 12 });
}

/** node-postgres: a `PoolClient` inside `BEGIN … COMMIT`. */
function pgAdapter(schema: string): StackAdapter {
  const pool = poolOn(schema);
  return {
    name: 'node-postgres',
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
}

/** Drizzle on node-postgres: the `tx` of `db.transaction(async (tx) => …)`. */
function drizzleAdapter(schema: string): StackAdapter {
  const pool = poolOn(schema);
  const db = drizzle(pool);
  return {
    name: 'drizzle (node-postgres)',
    deliver(guard, key, handler, options) {
      return db.transaction((own) =>
        runInDrizzleTransaction(
          guard,
          own,
          key,
          async (tx, _claim, payonceTx) => {
            const ops: StackOps = {
              isOwn: tx === own,
              async writeEffect(eventId) {
                await tx.insert(effects).values({ eventId });
              },
              joinedIds: () =>
                tx
                  .select({ orderId: orders.id, customerId: customers.id })
                  .from(orders)
                  .innerJoin(customers, eq(customers.id, orders.customerId))
                  .orderBy(orders.id),
            };
            await handler(ops, payonceTx);
          },
          options,
        ),
      );
    },
    close: () => pool.end(),
  };
}

/** Every adapter of the suite, by name (the kill -9 child opens one by name). */
export const STACK_ADAPTERS: Readonly<Record<string, (schema: string) => StackAdapter>> = {
  pg: pgAdapter,
  drizzle: drizzleAdapter,
};
