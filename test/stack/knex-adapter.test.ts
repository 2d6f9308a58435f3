import createKnex, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { joinTransaction } from '../../packages/payonce/src/stores/sql/joined-transaction.js';
import type { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { knexExecutor, knexTransactions, runInKnexTransaction } from '../../packages/payonce/src/tx/knex.js';
import { openStackFixture } from './stack-target.js';

// payonce/tx/knex beyond the conformance suite, on a real better-sqlite3 file: the opener knexTransactions (Knex
// keeps one connection there, so transactions run one after another), and the knex instance refused as a trx.

describe('payonce/tx/knex on better-sqlite3', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let knex: Knex;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    knex = createKnex({
      client: 'better-sqlite3',
      connection: { filename: fixture.target.url },
      useNullAsDefault: true,
    });
  });

  afterAll(async () => {
    await knex?.destroy();
    await fixture?.drop();
  });

  it('knexTransactions opens the transaction: parallel works commit, a throw rolls back', async () => {
    const outbox = new Outbox(fixture.store as SqliteStore);
    const transactions = knexTransactions(knex);
    expect(transactions).toMatchObject({ dialect: 'sqlite', stack: 'knex (better-sqlite3)' });
    const work = (eventId: string, fail: boolean) =>
      transactions.transaction(async (trx, executor) => {
        await trx('stack_effects').insert({ event_id: eventId });
        await joinTransaction(executor, (payonceTx) =>
          outbox.enqueueOnce(payonceTx as never, 'order.fulfil', eventId, {}),
        );
        if (fail) throw new Error('declined');
      });
    const settled = await Promise.allSettled([work('k-1', false), work('k-2', true), work('k-3', false)]);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const effects = await knex('stack_effects').select('event_id').where('event_id', 'like', 'k-%').orderBy('event_id');
    expect(effects).toEqual([{ event_id: 'k-1' }, { event_id: 'k-3' }]);
    expect(await outbox.find('order.fulfil', 'k-2')).toBeNull();
    expect(await outbox.find('order.fulfil', 'k-3')).not.toBeNull();
  });

  it('refuses the knex instance instead of its trx, and a trx as the opener', async () => {
    const guard = new IdempotencyGuard(fixture.store);
    const key = new RequestKey('stack', 'wrong-1');
    await expect(runInKnexTransaction(guard, knex, key, async () => {})).rejects.toThrow(InvalidOption);
    await expect(runInKnexTransaction(guard, knex, key, async () => {})).rejects.toThrow(/not the knex instance/);
    await knex.transaction(async (trx) => {
      expect(() => knexTransactions(trx)).toThrow(/not a trx/);
    });
  });
});

// On pg, payonce's statements go to the transaction's own pg connection (no Knex query builder or `?` rewrite per
// statement), still inside the transaction, and never after it ended.

describe('payonce/tx/knex on pg', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let knex: Knex;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    knex = createKnex({
      client: 'pg',
      connection: { connectionString: fixture.target.url, options: `-c search_path=${fixture.target.schema}` },
      pool: { min: 0, max: 2 },
    });
  });

  afterAll(async () => {
    await knex?.destroy();
    await fixture?.drop();
  });

  it("runs payonce's statements on the transaction's connection, as written, unseen by Knex's query events", async () => {
    const seen: string[] = [];
    const answer = await knex.transaction(async (trx) => {
      trx.on('query', (query: { sql: string }) => seen.push(query.sql));
      await trx('stack_effects').insert({ event_id: 'knex-pg-1' });
      const executor = knexExecutor(trx);
      const inserted = await executor.execute(
        `insert into stack_effects (event_id) values ($1), ($1 || '?') on conflict do nothing`,
        ['knex-pg-2'],
      );
      const { rows } = await executor.execute(
        'select count(*)::int as n, $1::jsonb ? $2 as has, pg_backend_pid() = $3 as same from stack_effects',
        ['{"k":1}', 'k', (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid],
      );
      return { inserted, row: rows[0], seen: [...seen] };
    });
    expect(answer).toEqual({
      inserted: { rows: [], numAffectedRows: 2n },
      row: { n: 3, has: true, same: true },
      // the trx's own two queries only (its COMMIT comes after)
      seen: [expect.stringMatching(/^insert into "stack_effects"/), 'select pg_backend_pid() as pid'],
    });
  });

  it('refuses a statement once the Knex transaction has committed, writing nothing', async () => {
    let executor: ReturnType<typeof knexExecutor> | undefined;
    await knex.transaction(async (trx) => {
      executor = knexExecutor(trx);
      await executor.execute('insert into stack_effects (event_id) values ($1)', ['knex-pg-3']);
    });
    await expect(executor!.execute('insert into stack_effects (event_id) values ($1)', ['knex-pg-4'])).rejects.toThrow(
      /already committed or rolled back/,
    );
    const rows = await knex('stack_effects').select('event_id').whereIn('event_id', ['knex-pg-3', 'knex-pg-4']);
    expect(rows).toEqual([{ event_id: 'knex-pg-3' }]);
  });
});
