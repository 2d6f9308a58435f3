import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickTransaction } from '../../../packages/payonce/src/providers/click/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace } from '../payme/payme-stores.js';
import { newClickTransId } from './click-fixtures.js';
import { clickBench } from './click-harness.js';

/** The engine's onPrepared hook, on SQLite (the calls are the same on every dialect; click-engine.test.ts runs all three). */
describe('sqlite: Click engine hook onPrepared', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
  });
  afterAll(async () => namespace?.drop());

  it('runs once per new transaction, not for a repeated Prepare; a newer attempt cancels the old one first', async () => {
    const seen: { hook: string; id: number; state: string }[] = [];
    const note = (hook: string) => (_trx: unknown, tx: ClickTransaction) => {
      seen.push({ hook, id: tx.clickTransId, state: tx.state });
    };
    const bench = clickBench(store, { onPrepared: note('prepared'), onCancelled: note('cancelled') });
    const order = bench.addOrder();
    const first = newClickTransId();
    for (let i = 0; i < 2; i++) expect((await bench.prepare(order, first)).error).toBe(0);
    const second = newClickTransId();
    expect((await bench.prepare(order, second)).error).toBe(0);
    expect(seen).toEqual([
      { hook: 'prepared', id: first, state: 'prepared' },
      { hook: 'cancelled', id: first, state: 'cancelled' },
      { hook: 'prepared', id: second, state: 'prepared' },
    ]);
  });

  it('an onPrepared that throws rolls the Prepare back (-7) and leaves no transaction', async () => {
    const bench = clickBench(store, {
      onPrepared: () => {
        throw new Error('reservation failed');
      },
    });
    const id = newClickTransId();
    expect((await bench.prepare(bench.addOrder(), id)).error).toBe(-7);
    expect(await bench.merchant.find(id)).toBeNull();
  });
});
