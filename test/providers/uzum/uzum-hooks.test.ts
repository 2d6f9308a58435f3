import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UzumTransaction } from '../../../packages/payonce/src/providers/uzum/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace } from '../payme/payme-stores.js';
import { AMOUNT, code, newTransId, SERVICE_ID } from './uzum-fixtures.js';
import { uzumBench } from './uzum-harness.js';

/** The engine's onCreated hook, on SQLite (the calls are the same on every dialect). */
describe('sqlite: Uzum engine hook onCreated', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
  });
  afterAll(async () => namespace?.drop());

  it('runs once per new transaction, in its /create, not for a repeated /create', async () => {
    const seen: { transId: string; status: string }[] = [];
    const bench = uzumBench(store, {
      onCreated: (_trx: unknown, tx: UzumTransaction) => {
        seen.push({ transId: tx.transId, status: tx.status });
      },
    });
    const { params } = bench.addOrder();
    const transId = newTransId();
    const body = { serviceId: SERVICE_ID, timestamp: bench.clock.now(), transId, params, amount: AMOUNT };
    for (let i = 0; i < 2; i++) expect((await bench.call('create', body)).status).toBe(200);
    expect(seen).toEqual([{ transId, status: 'CREATED' }]);
  });

  it('an onCreated that throws rolls the /create back (99999) and leaves no transaction', async () => {
    const bench = uzumBench(store, {
      onCreated: () => {
        throw new Error('reservation failed');
      },
    });
    const transId = newTransId();
    const body = { serviceId: SERVICE_ID, timestamp: 1, transId, params: bench.addOrder().params, amount: AMOUNT };
    const answer = await bench.call('create', body);
    expect(answer.body).toMatchObject({ status: 'FAILED', errorCode: code('error while checking') });
    expect(await bench.merchant.find(transId)).toBeNull();
  });
});
