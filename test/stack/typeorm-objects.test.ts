import 'reflect-metadata';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import {
  runInTypeormTransaction,
  typeormExecutor,
  typeormTransactions,
  withTypeormTransaction,
} from '../../packages/payonce/src/tx/typeorm.js';
import { typeormOptions } from './adapters/typeorm.js';
import { openStackFixture, type StackStore } from './stack-target.js';

// payonce/tx/typeorm beyond the conformance suite: a QueryRunner the application began itself, and the objects it
// refuses (each with InvalidOption naming what is accepted).

describe('payonce/tx/typeorm on PostgreSQL: a QueryRunner after startTransaction()', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let store: StackStore;
  let dataSource: DataSource;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    store = fixture.store;
    dataSource = await new DataSource(typeormOptions(fixture.target)).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await fixture?.drop();
  });

  const effects = async (eventId: string) =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${eventId}`.execute(store.db))
        .rows[0]?.n,
    );

  it('commits with the runner, hands the handler that runner, and leaves nothing after rollbackTransaction', async () => {
    const guard = new IdempotencyGuard(store);
    const outbox = new Outbox(store);
    for (const [eventId, commit] of [
      ['runner-rollback', false],
      ['runner-commit', true],
    ] as const) {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      let same = false;
      try {
        await runInTypeormTransaction(
          guard,
          runner,
          new RequestKey('stack', eventId),
          async (tx, _claim, payonceTx) => {
            same = tx === runner;
            await tx.query('insert into stack_effects (event_id) values ($1)', [eventId]);
            await outbox.enqueueOnce(payonceTx, 'order.fulfil', eventId, {});
          },
        );
        await (commit ? runner.commitTransaction() : runner.rollbackTransaction());
      } finally {
        await runner.release();
      }
      expect(same).toBe(true);
      expect(await effects(eventId)).toBe(commit ? 1 : 0);
      expect((await store.find(new RequestKey('stack', eventId)))?.status ?? null).toBe(commit ? 'completed' : null);
      expect((await outbox.find('order.fulfil', eventId)) !== null).toBe(commit);
    }
  });

  it('withTypeormTransaction gives the manager as payonce view for an outbox enqueue of the application', async () => {
    const outbox = new Outbox(store);
    const result = await dataSource.transaction((manager) =>
      withTypeormTransaction(store, manager, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', 'with-1', {})),
    );
    expect(result.kind).toBe('enqueued');
    await expect(
      dataSource.transaction(async (manager) => {
        await withTypeormTransaction(store, manager, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', 'with-2', {}));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await outbox.find('order.fulfil', 'with-2')).toBeNull();
  });

  it('refuses the DataSource, its root manager, a runner not started or released, and a plain object', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('stack', 'wrong-1');
    const run = (tx: unknown) => runInTypeormTransaction(guard, tx as never, key, async () => {});
    await expect(run(dataSource)).rejects.toThrow(/a TypeORM DataSource, not a transaction/);
    await expect(run(dataSource.manager)).rejects.toThrow(/an EntityManager outside a transaction/);
    const runner = dataSource.createQueryRunner();
    await expect(run(runner)).rejects.toThrow(/no open transaction \(not started\)/);
    await expect(run(runner.manager)).rejects.toThrow(/no open transaction \(not started\)/);
    await runner.release();
    await expect(run(runner)).rejects.toThrow(/no open transaction \(released\)/);
    await expect(run({ query: async () => ({}) })).rejects.toThrow(InvalidOption);
    expect(() => typeormExecutor(null as never)).toThrow(InvalidOption);
  });

  it("refuses a guard whose store is not the data source's database, and a DataSource payonce has no store for", async () => {
    const memoryGuard = new IdempotencyGuard(new MemoryStore()) as unknown as IdempotencyGuard<StackStore>;
    await expect(
      dataSource.transaction((manager) =>
        runInTypeormTransaction(memoryGuard, manager, new RequestKey('stack', 'wrong-2'), async () => {}),
      ),
    ).rejects.toThrow(/must be a postgres SQL store/);
    const mssql = { options: { type: 'mssql' }, manager: {}, transaction: async () => {}, createQueryRunner() {} };
    expect(() => typeormTransactions(mssql as never)).toThrow(/TypeORM "mssql" data source/);
    expect(() => typeormTransactions(dataSource.manager as never)).toThrow(/must be a TypeORM DataSource/);
  });
});

describe('payonce/tx/typeorm on better-sqlite3: the opener runs one transaction at a time on the one connection', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let dataSource: DataSource;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    dataSource = await new DataSource(typeormOptions(fixture.target)).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await fixture?.drop();
  });

  it('starts the second transaction after the first ended, and a throw rolls back only its own', async () => {
    const transactions = typeormTransactions(dataSource);
    expect(transactions.dialect).toBe('sqlite');
    const steps: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = transactions.transaction(async (manager) => {
      steps.push('first:begin');
      await manager.query('insert into stack_effects (event_id) values (?)', ['serial-1']);
      await held;
      steps.push('first:end');
      throw new Error('first rolls back');
    });
    const second = transactions.transaction(async (_manager, executor) => {
      steps.push('second:begin');
      await executor.execute('insert into stack_effects (event_id) values (?)', ['serial-2']);
    });
    await Promise.resolve();
    release();
    await expect(first).rejects.toThrow('first rolls back');
    await second;
    expect(steps).toEqual(['first:begin', 'first:end', 'second:begin']);
    const rows = await dataSource.query('select event_id from stack_effects order by event_id');
    expect(rows).toEqual([{ event_id: 'serial-2' }]);
  });
});
