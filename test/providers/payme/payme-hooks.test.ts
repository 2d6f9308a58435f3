import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymeTransaction } from '../../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { AMOUNT, CANCEL_REASON, code, newPaymeId, PAYME_TIME, STATES } from './payme-fixtures.js';
import { paymeBench } from './payme-harness.js';
import { paymeNamespace } from './payme-stores.js';

/** The engine's hooks, on SQLite (the calls are the same on every dialect; payme-engine.test.ts runs all three). */
describe('sqlite: Payme engine hooks onCreated and onCancelled', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
  });
  afterAll(async () => namespace?.drop());

  function recordingBench() {
    const seen: { hook: string; state: number; reason: number | null }[] = [];
    const note = (hook: string) => (_trx: unknown, tx: PaymeTransaction) => {
      seen.push({ hook, state: tx.state, reason: tx.reason });
    };
    const bench = paymeBench(store, { onCreated: note('created'), onCancelled: note('cancelled') });
    return { bench, seen };
  }

  it('onCreated runs once per new transaction (not for a repeated Create); onCancelled once per Cancel', async () => {
    const { bench, seen } = recordingBench();
    const { account } = bench.addOrder();
    const id = newPaymeId();
    for (let i = 0; i < 2; i++)
      await bench.call('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account });
    for (let i = 0; i < 2; i++) await bench.call('CancelTransaction', { id, reason: CANCEL_REASON });
    expect(seen).toEqual([
      { hook: 'created', state: 1, reason: null },
      { hook: 'cancelled', state: -1, reason: CANCEL_REASON },
    ]);
  });

  it('a Perform past the 12-hour timeout cancels with reason 4 and calls onCancelled in that commit', async () => {
    const { bench, seen } = recordingBench();
    const { account } = bench.addOrder();
    const id = newPaymeId();
    await bench.call('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account });
    bench.clock.advance(STATES.timeout_ms + 1);
    expect((await bench.call('PerformTransaction', { id })).error?.code).toBe(code('-31008'));
    expect(seen.at(-1)).toEqual({ hook: 'cancelled', state: -1, reason: 4 });
    expect((await bench.merchant.find(id))?.state).toBe(-1);
  });

  it('an onCreated that throws rolls the Create back (-32400) and leaves no transaction', async () => {
    const bench = paymeBench(store, {
      onCreated: () => {
        throw new Error('reservation failed');
      },
    });
    const { account } = bench.addOrder();
    const id = newPaymeId();
    const answer = await bench.call('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account });
    expect(answer.error?.code).toBe(code('-32400'));
    expect(await bench.merchant.find(id)).toBeNull();
  });
});
