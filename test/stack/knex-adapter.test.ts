import createKnex, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { joinTransaction } from '../../packages/payonce/src/stores/sql/joined-transaction.js';
import type { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { knexTransactions, runInKnexTransaction } from '../../packages/payonce/src/tx/knex.js';
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
