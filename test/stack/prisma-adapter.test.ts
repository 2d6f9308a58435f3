import { readFileSync } from 'node:fs';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import {
  PrismaDriverError,
  prismaExecutor,
  prismaTransactions,
  runInPrismaTransaction,
  withPrismaTransaction,
} from '../../packages/payonce/src/tx/prisma.js';
import { PrismaClient as PostgresClient, type Prisma as PostgresPrisma } from './prisma/generated/postgres/client.js';
import { PrismaClient as SqliteClient } from './prisma/generated/sqlite/client.js';
import { openStackFixture, type StackStore } from './stack-target.js';

// The parts of payonce/tx/prisma the conformance suite does not reach: wrong objects, the dialect, the opener
// `prismaTransactions` and its options, and how values and rows cross the executor.

describe('payonce/tx/prisma on PostgreSQL', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let store: StackStore;
  let prisma: PostgresClient;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    store = fixture.store;
    const { url, schema } = fixture.target;
    prisma = new PostgresClient({
      adapter: new PrismaPg({ connectionString: url, options: `-c search_path=${schema}` }, { schema }),
    });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await fixture?.drop();
  });

  const effects = async (eventId: string) =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${eventId}`.execute(store.db))
        .rows[0]?.n,
    );

  it('refuses the PrismaClient itself (its statements would run outside the transaction), and a plain object', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('stack', 'wrong-1');
    expect(() => prismaExecutor(prisma)).toThrow(InvalidOption);
    expect(() => prismaExecutor(prisma)).toThrow(/is a PrismaClient, not a transaction/);
    await expect(runInPrismaTransaction(guard, prisma, key, async () => {})).rejects.toThrow(
      /prisma\.\$transaction\(async \(tx\) => …\)/,
    );
    const notPrisma = { query: async () => [] } as never;
    await expect(withPrismaTransaction(store, notPrisma, async () => {})).rejects.toThrow(InvalidOption);
    expect(await store.find(key)).toBeNull();
  });

  it('refuses a transaction client as the opener, a dialect that disagrees, and options out of range', async () => {
    await prisma.$transaction(async (tx) => {
      expect(() => prismaTransactions(tx as never)).toThrow(/must be a PrismaClient/);
      expect(prismaExecutor(tx).dialect).toBe('postgres');
      expect(prismaExecutor(tx, 'postgres').dialect).toBe('postgres');
      expect(() => prismaExecutor(tx, 'mysql')).toThrow(/is mysql, but the Prisma client's provider is postgresql/);
      expect(() => prismaExecutor(tx, 'oracle' as never)).toThrow(InvalidOption);
    });
    expect(() => prismaTransactions(prisma, { timeout: 0 })).toThrow(/invalid option timeout/);
    expect(() => prismaTransactions(prisma, { maxWait: 1.5 })).toThrow(/invalid option maxWait/);
    expect(() => prismaTransactions(prisma, { isolationLevel: 'Snapshot' as never })).toThrow(/isolationLevel/);
    expect(() => prismaTransactions({} as never)).toThrow(InvalidOption);
  });

  it('prismaTransactions opens one interactive transaction: commits with the work, rolls back when it throws', async () => {
    const transactions = prismaTransactions(prisma, { timeout: 20_000, isolationLevel: 'ReadCommitted' });
    expectTypeOf(transactions).toEqualTypeOf<StackTransactions<PostgresPrisma.TransactionClient>>();
    expect(transactions).toMatchObject({ dialect: 'postgres', stack: 'prisma' });
    const guard = new IdempotencyGuard(store);
    const outcome = await transactions.transaction((tx, executor) =>
      runInPrismaTransaction(guard, tx, new RequestKey('stack', 'opened-1'), async (own) => {
        expect(executor.dialect).toBe('postgres');
        await own.stackEffect.create({ data: { eventId: 'opened-1' } });
      }),
    );
    expect(outcome.isReplay).toBe(false);
    expect(await effects('opened-1')).toBe(1);
    await expect(
      transactions.transaction(async (tx, executor) => {
        await tx.stackEffect.create({ data: { eventId: 'opened-2' } });
        await executor.execute('insert into stack_effects (event_id) values ($1)', ['opened-2']);
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await effects('opened-2')).toBe(0);
  });

  it('takes a subclass of PrismaClient (a NestJS PrismaService) and an extended client, typed by their own tx', async () => {
    class PrismaService extends PostgresClient {}
    const { url, schema } = fixture.target;
    const service = new PrismaService({
      adapter: new PrismaPg({ connectionString: url, options: `-c search_path=${schema}` }, { schema }),
    });
    try {
      const extended = service.$extends({ query: { $allOperations: ({ args, query }) => query(args) } });
      const openers = [prismaTransactions(service), prismaTransactions(extended)];
      for (const [index, transactions] of openers.entries()) {
        expect(transactions.dialect).toBe('postgres');
        const eventId = `subclass-${index}`;
        await transactions.transaction(async (tx, executor) => {
          await tx.stackEffect.create({ data: { eventId } });
          expect(
            (await executor.execute('select count(*) as n from stack_effects where event_id = $1', [eventId])).rows,
          ).toEqual([{ n: 1n }]);
        });
        expect(await effects(eventId)).toBe(1);
      }
    } finally {
      await service.$disconnect();
    }
  });

  it('rolls the transaction back when it outlives its timeout (Prisma ends it, payonce does not wait)', async () => {
    const transactions = prismaTransactions(prisma, { timeout: 100 });
    const failed = transactions.transaction(async (tx, executor) => {
      await tx.stackEffect.create({ data: { eventId: 'timeout-1' } });
      // Ten times the timeout: Prisma has given up on the transaction, and refuses its next statement.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await executor.execute('insert into stack_effects (event_id) values ($1)', ['timeout-1']);
    });
    await expect(failed).rejects.toThrow(/Transaction/);
    expect(await effects('timeout-1')).toBe(0);
  });

  it('binds bytes, bigints, arrays, dates, JSON text and null, answers RETURNING rows and counts of changed rows', async () => {
    const rows = await prisma.$transaction(async (tx) => {
      const executor = prismaExecutor(tx);
      await executor.execute('create temporary table probe (id text primary key, n bigint, b bytea, tags text[])', []);
      const inserted = await executor.execute('insert into probe values ($1, $2, $3, $4), ($5, $6, $7, $8)', [
        'a',
        9_007_199_254_740_993n,
        new Uint8Array([0, 255]),
        ['x', 'y'],
        'b',
        1,
        null,
        [],
      ]);
      expect(inserted).toEqual({ rows: [], numAffectedRows: 2n });
      const updated = await executor.execute(`update probe set tags = $1 where id <> 'returning'`, [['z']]);
      expect(updated.numAffectedRows).toBe(2n);
      const returned = await executor.execute('update probe set n = n + 1 where id = $1 returning id, n', ['b']);
      expect(returned).toEqual({ rows: [{ id: 'b', n: 2n }] });
      const duplicate = executor.execute('insert into probe (id) values ($1) on conflict do nothing', ['a']);
      expect((await duplicate).numAffectedRows).toBe(0n);
      const typed = await executor.execute('select $1::timestamptz as at, $2::jsonb as doc, $3::text as text', [
        new Date(0),
        '{"k":[1]}',
        '{"k":[1]}',
      ]);
      // Prisma's own mappings, which payonce's tables never meet (no timestamp or JSON column): passed through as is.
      expect(typed.rows).toEqual([{ at: new Date(0), doc: { k: [1] }, text: '{"k":[1]}' }]);
      return (await executor.execute('select id, n, b, tags from probe order by id', [])).rows;
    });
    expect(rows).toEqual([
      { id: 'a', n: 9_007_199_254_740_993n, b: new Uint8Array([0, 255]), tags: ['z'] },
      { id: 'b', n: 2n, b: null, tags: ['z'] },
    ]);
  });

  it("throws a database error of payonce's statement as PrismaDriverError with the SQLSTATE, Prisma's error as cause", async () => {
    await expect(
      prisma.$transaction((tx) => prismaExecutor(tx).execute('select $1::int as n', ['not a number'])),
    ).rejects.toSatisfy(
      (error) => error instanceof PrismaDriverError && error.code === '22P02' && error.cause instanceof Error,
    );
  });

  it('withPrismaTransaction: an outbox job commits with the Prisma write, or neither does', async () => {
    const outbox = new Outbox(store);
    await prisma.$transaction(async (tx) => {
      await tx.stackEffect.create({ data: { eventId: 'with-1' } });
      const result = await withPrismaTransaction(store, tx, (trx) =>
        outbox.enqueueOnce(trx, 'order.fulfil', 'with-1', {}),
      );
      expect(result.kind).toBe('enqueued');
    });
    await expect(
      prisma.$transaction(async (tx) => {
        await withPrismaTransaction(store, tx, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', 'with-2', {}));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await outbox.find('order.fulfil', 'with-1')).not.toBeNull();
    expect(await outbox.find('order.fulfil', 'with-2')).toBeNull();
    expect(await effects('with-1')).toBe(1);
  });
});

describe('payonce/tx/prisma on SQLite', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let prisma: SqliteClient;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${fixture.target.url}` }) });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await fixture?.drop();
  });

  it("reads the dialect from the client's provider, and refuses a PostgreSQL store for it", async () => {
    expect(prismaTransactions(prisma).dialect).toBe('sqlite');
    const pgFixture = await openStackFixture('postgres');
    try {
      await expect(
        prisma.$transaction((tx) => withPrismaTransaction(pgFixture.store, tx, async () => {})),
      ).rejects.toThrow(/must be a sqlite SQL store/);
    } finally {
      await pgFixture.drop();
    }
  });
});

describe('docs/your-stack.md "Prisma"', () => {
  it('shows the schema its doc blocks run with (test/docs/prisma/schema.prisma, generated by prisma:generate)', () => {
    const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const block = /```prisma\n([\s\S]*?)```/.exec(read('docs/your-stack.md'))?.[1];
    expect(block).toBe(read('test/docs/prisma/schema.prisma'));
  });
});
