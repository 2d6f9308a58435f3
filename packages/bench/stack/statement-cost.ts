/**
 * Client CPU of one statement of payonce through each stack's executor (`payonce/tx/<stack>`), and of the stack's
 * own empty transaction, in one process, round after round: where a `stack-*` row's time goes, apart from the
 * guard's own work (notes/stack.md). Each stack opens its transactions with its payonce opener
 * (`pgTransactions(pool)`, `prismaTransactions(prisma)`, …, a pool of 10 connections), 16 concurrent callers; a
 * transaction runs 0 or 3 statements through the executor the opener hands its work:
 *   an `INSERT … ON CONFLICT DO NOTHING` with a 200-character text value, an `UPDATE`, a one-row `SELECT`
 * (the shapes of payonce's claim, completion and lookup). Per stack it prints the median over rounds of the CPU of
 * an empty transaction and of one statement ((CPU with 3 − CPU with 0) ÷ 3), in µs. Run from packages/bench after
 * `npm run build` and `npm run prisma:generate` at the root:
 *   npx tsx stack/statement-cost.ts [rounds=5] [transactions=600] [stack …]
 */
import type { SqlExecutor, StackTransactions } from 'payonce/tx/pg';
import { measureUnique } from '../lib/measure.js';
import { createNamespace } from '../lib/namespaces.js';
import { STACK_CONCURRENCY } from '../targets/stack.js';
import { POOL_SIZE, type StackWork, searchPathOf } from './stack-side.js';

/** One stack's payonce opener, and how to close what it opened. */
interface OpenedStack {
  readonly transactions: StackTransactions<unknown>;
  close(): Promise<void>;
}

type PoolConfig = StackWork['pool'];

/** The stacks of `sides/`, each opened as its side opens it, through the adapter's opener. */
const OPENERS: Readonly<Record<string, (pool: PoolConfig) => Promise<OpenedStack>>> = {
  async pg(pool) {
    const { default: pg } = await import('pg');
    const { pgTransactions } = await import('payonce/tx/pg');
    const pgPool = new pg.Pool(pool);
    return { transactions: pgTransactions(pgPool), close: () => pgPool.end() };
  },
  async drizzle(pool) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { drizzleTransactions } = await import('payonce/tx/drizzle');
    const pgPool = new pg.Pool(pool);
    return { transactions: drizzleTransactions(drizzle(pgPool)), close: () => pgPool.end() };
  },
  async 'postgres-js'(pool) {
    const { postgresJsTransactions } = await import('payonce/tx/postgres-js');
    const sql = await postgresJs(pool);
    return { transactions: postgresJsTransactions(sql), close: () => sql.end() };
  },
  async kysely(pool) {
    const { default: pg } = await import('pg');
    const { Kysely, PostgresDialect } = await import('kysely');
    const { kyselyTransactions } = await import('payonce/tx/kysely');
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool(pool) }) });
    return { transactions: kyselyTransactions(db), close: () => db.destroy() };
  },
  async knex(pool) {
    const { default: createKnex } = await import('knex');
    const { knexTransactions } = await import('payonce/tx/knex');
    const knex = createKnex({
      client: 'pg',
      connection: { connectionString: pool.connectionString, options: pool.options },
      pool: { min: 0, max: pool.max },
    });
    return { transactions: knexTransactions(knex), close: () => knex.destroy() };
  },
  async typeorm(pool) {
    await import('reflect-metadata');
    const { DataSource } = await import('typeorm');
    const { typeormTransactions } = await import('payonce/tx/typeorm');
    const dataSource = await new DataSource({
      type: 'postgres',
      url: pool.connectionString,
      poolSize: pool.max,
      extra: { options: pool.options },
    }).initialize();
    return { transactions: typeormTransactions(dataSource), close: () => dataSource.destroy() };
  },
  async prisma(pool) {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const { PrismaClient } = await import('./prisma/generated/client.js');
    const { prismaTransactions } = await import('payonce/tx/prisma');
    const prisma = new PrismaClient({ adapter: new PrismaPg({ ...pool }, { schema: searchPathOf(pool) }) });
    // The limits of sides/prisma.ts: 16 callers queue for 10 connections on a busy host.
    const transactions = prismaTransactions(prisma, { maxWait: 20_000, timeout: 20_000 });
    return { transactions: transactions as StackTransactions<unknown>, close: () => prisma.$disconnect() };
  },
  async 'drizzle-postgres-js'(pool) {
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { drizzleTransactions } = await import('payonce/tx/drizzle');
    const sql = await postgresJs(pool);
    return { transactions: drizzleTransactions(drizzle(sql)), close: () => sql.end() };
  },
};

/** A postgres.js `sql` on the namespace, as sides/postgres-js.ts opens it. */
async function postgresJs(pool: PoolConfig) {
  const { default: postgres } = await import('postgres');
  return postgres(pool.connectionString, {
    max: pool.max,
    connection: { search_path: searchPathOf(pool) },
    onnotice: () => {},
  });
}

/** A text value the size of payonce's fingerprints and small stored responses (a neutral placeholder). */
const TEXT = 'x'.repeat(200);

/** The three statements of one transaction: a claim-like insert, a completion-like update, a lookup. */
async function threeStatements(executor: SqlExecutor, id: string): Promise<void> {
  await executor.execute(
    'insert into payonce_receipts (provider, external_id, status, fingerprint, attempts, claimed_at, created_at) values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing',
    ['bench', id, 'processing', TEXT, 1, 0, 0],
  );
  await executor.execute(
    'update payonce_receipts set status = $1, finished_at = $2 where provider = $3 and external_id = $4',
    ['completed', 1, 'bench', id],
  );
  const { rows } = await executor.execute(
    'select status, fingerprint from payonce_receipts where provider = $1 and external_id = $2',
    ['bench', id],
  );
  if (rows.length !== 1) throw new Error(`${id}: the lookup found ${rows.length} rows`);
}

const [roundsText = '5', transactionsText = '600', ...chosen] = process.argv.slice(2);
const rounds = Number(roundsText);
const count = Number(transactionsText);
const names = chosen.length > 0 ? chosen : Object.keys(OPENERS);
for (const name of names) {
  if (!Object.hasOwn(OPENERS, name))
    throw new Error(`unknown stack ${name}; known: ${Object.keys(OPENERS).join(', ')}`);
}
const ns = await createNamespace('postgres');
try {
  const pool = { ...ns.info.postgres!, max: POOL_SIZE };
  const opened: { name: string; stack: OpenedStack }[] = [];
  for (const name of names) opened.push({ name, stack: await OPENERS[name]!(pool) });
  /** CPU µs per transaction of `stack` with `statements` (0 or 3) statements each. */
  const run = async (stack: OpenedStack, statements: 0 | 3, prefix: string) => {
    const before = process.cpuUsage();
    const sample = await measureUnique(
      (id) =>
        stack.transactions.transaction(async (_tx, executor) => {
          if (statements === 3) await threeStatements(executor, id);
          return 'ran' as const;
        }),
      count,
      STACK_CONCURRENCY,
      prefix,
    );
    const used = process.cpuUsage(before);
    if (sample.errors > 0) throw new Error(`${prefix}: ${sample.firstError}`);
    return (used.user + used.system) / sample.deliveries;
  };
  for (const { name, stack } of opened) await run(stack, 3, `w-${name}-`);
  const empty: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const perStatement: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const { name, stack } of opened) {
      await ns.reset();
      const none = await run(stack, 0, `r${round}-${name}-0-`);
      const three = await run(stack, 3, `r${round}-${name}-3-`);
      empty[name]!.push(none);
      perStatement[name]!.push((three - none) / 3);
    }
  }
  for (const { stack } of opened) await stack.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rounded = (values: number[]) => values.map((value) => value.toFixed(0)).join(' ');
  for (const name of names) {
    process.stdout.write(
      `${name.padEnd(20)} empty transaction ${median(empty[name]!).toFixed(0).padStart(5)} µs (${rounded(empty[name]!)}),` +
        ` per statement ${median(perStatement[name]!).toFixed(0).padStart(4)} µs (${rounded(perStatement[name]!)})\n`,
    );
  }
} finally {
  await ns.drop();
}
