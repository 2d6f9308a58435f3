import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { RunOptions } from '../../../packages/payonce/src/core/guard-types.js';
import type { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { type PrismaTransactionOptions, runInPrismaTransaction } from '../../../packages/payonce/src/tx/prisma.js';
import { PrismaClient as MysqlClient } from '../prisma/generated/mysql/client.js';
import { PrismaClient as PostgresClient } from '../prisma/generated/postgres/client.js';
import { PrismaClient as SqliteClient } from '../prisma/generated/sqlite/client.js';
import type { StackAdapter, StackAdapterDefinition, StackHandler, StackOps } from '../stack-adapter.js';
import type { StackStore, StackTarget } from '../stack-target.js';

// The generated clients (scripts/prisma-generate.mjs, from test/stack/prisma/<database>.prisma) differ by database
// only in their types; the suite's operations are the same Prisma calls on each.

/**
 * Prisma's interactive-transaction defaults (maxWait 2 s for a connection, timeout 5 s for the whole transaction) are
 * raised here as a margin: ten parallel copies of one delivery queue for the pool's connections and the receipt's
 * row lock (PostgreSQL, MariaDB) or for the one SQLite connection of the adapter, and on a busy 2-core machine the
 * whole case took up to 2.5 s with the defaults (2026-12-06). The timeout stays below the suite's 30 s so that a
 * stuck transaction still fails the test.
 */
const TRANSACTION_OPTIONS: PrismaTransactionOptions = { maxWait: 20_000, timeout: 20_000 };

/** A Prisma client of the suite: the PostgreSQL, MariaDB or SQLite one (same models, same calls). */
type SuiteClient = PostgresClient;

/** A client on `target`, through the driver adapter of its database. */
function clientOf(target: StackTarget): SuiteClient {
  if (target.database === 'postgres') {
    const pool = { connectionString: target.url, options: `-c search_path=${target.schema}`, max: 12 };
    return new PostgresClient({ adapter: new PrismaPg(pool, { schema: target.schema }) });
  }
  if (target.database === 'mysql') {
    const url = new URL(target.url);
    const adapter = new PrismaMariaDb({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
      connectionLimit: 12,
    });
    // Same models and calls as the PostgreSQL client; only the generated types differ (`paid` is an Int here).
    return new MysqlClient({ adapter }) as unknown as SuiteClient;
  }
  return new SqliteClient({
    adapter: new PrismaBetterSqlite3({ url: `file:${target.url}` }),
  }) as unknown as SuiteClient;
}

/** One delivery in one interactive transaction of `prisma`, the handler working on Prisma's own `tx`. */
function deliverWith(
  prisma: SuiteClient,
  guard: IdempotencyGuard<StackStore>,
  key: RequestKey,
  handler: StackHandler,
  options?: RunOptions,
) {
  return prisma.$transaction(
    (own) =>
      runInPrismaTransaction(
        guard,
        own,
        key,
        async (tx, _claim, payonceTx) => {
          const ops: StackOps = {
            isOwn: tx === own,
            async writeEffect(eventId) {
              await tx.stackEffect.create({ data: { eventId } });
            },
            async joinedIds() {
              // What a Prisma user writes for the join: a relation include (both models have an `id`).
              const orders = await tx.stackOrder.findMany({ include: { customer: true }, orderBy: { id: 'asc' } });
              return orders.map((order) => ({ orderId: order.id, customerId: order.customer.id }));
            },
          };
          await handler(ops, payonceTx);
        },
        options,
      ),
    TRANSACTION_OPTIONS,
  );
}

/** Prisma 7 with its driver adapter of each database: the `tx` of `prisma.$transaction(async (tx) => …)`. */
export const prismaStack: StackAdapterDefinition = {
  databases: ['postgres', 'mysql', 'sqlite'],
  make(target): StackAdapter {
    const prisma = clientOf(target);
    return {
      deliver: (guard, key, handler, options) => deliverWith(prisma, guard, key, handler, options),
      close: () => prisma.$disconnect(),
    };
  },
};
