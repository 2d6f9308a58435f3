import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { PAYME_BACKENDS as SQL_BACKENDS, paymeNamespace as sqlNamespace } from '../payme/payme-stores.js';
import { newClickTransId } from './click-fixtures.js';
import { clickBench } from './click-harness.js';

const COPIES = 10;

for (const backend of SQL_BACKENDS) {
  describe(`${backend}: Click calls in parallel`, () => {
    let namespace: Awaited<ReturnType<typeof sqlNamespace>>;
    const stores: SqlStore<unknown>[] = [];
    beforeAll(async () => {
      namespace = await sqlNamespace(backend);
      // Two stores (two connection pools, as two replicas would have) share one database.
      stores.push(await namespace.open(), await namespace.open());
    });
    afterAll(async () => namespace?.drop());

    it('makes one transaction and one onCompleted of the same Prepare ×10 then the same Complete ×10', async () => {
      const first = clickBench(stores[0] as SqlStore<unknown>);
      const benches = [first, clickBench(stores[1] as SqlStore<unknown>, {}, first.orders)];
      const order = first.addOrder();
      const id = newClickTransId();
      const prepares = await Promise.all(Array.from({ length: COPIES }, (_, n) => benches[n % 2]?.prepare(order, id)));
      expect(prepares.every((answer) => answer?.error === 0)).toBe(true);
      expect(new Set(prepares.map((answer) => answer?.merchant_prepare_id)).size).toBe(1);
      const completes = await Promise.all(
        Array.from({ length: COPIES }, (_, n) => benches[n % 2]?.complete(prepares[0] as never)),
      );
      expect(completes.every((answer) => answer?.error === 0)).toBe(true);
      expect(new Set(completes.map((answer) => answer?.merchant_confirm_id)).size).toBe(1);
      expect(await first.fulfilments(id)).toBe(1);
    });

    it('completes one of ×10 parallel Prepare+Complete attempts (different click_trans_id) for one order', async () => {
      const first = clickBench(stores[0] as SqlStore<unknown>);
      const benches = [first, clickBench(stores[1] as SqlStore<unknown>, {}, first.orders)];
      const order = first.addOrder();
      const ids = Array.from({ length: COPIES }, () => newClickTransId());
      const results = await Promise.all(
        ids.map(async (id, n) => {
          const bench = benches[n % 2] as (typeof benches)[number];
          const prepared = await bench.prepare(order, id);
          return prepared.error === 0 ? bench.complete(prepared) : prepared;
        }),
      );
      expect(results.filter((answer) => answer.error === 0)).toHaveLength(1);
      expect(results.every((answer) => [0, -4, -9].includes(answer.error))).toBe(true);
      const fulfilled = await Promise.all(ids.map((id) => first.fulfilments(id)));
      expect(fulfilled.reduce((sum, n) => sum + n, 0)).toBe(1);
      const stored = await Promise.all(ids.map((id) => first.merchant.find(id)));
      expect(stored.filter((tx) => tx?.state === 'completed')).toHaveLength(1);
      expect(stored.filter((tx) => tx?.state === 'prepared')).toHaveLength(0);
    });
  });
}
