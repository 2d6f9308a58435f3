import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { AMOUNT, code, newPaymeId, PAYME_TIME } from './payme-fixtures.js';
import { paymeBench } from './payme-harness.js';
import { PAYME_BACKENDS, paymeNamespace } from './payme-stores.js';

const COPIES = 10;

for (const backend of PAYME_BACKENDS) {
  describe(`${backend}: Payme calls in parallel`, () => {
    let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
    const stores: SqlStore<unknown>[] = [];
    beforeAll(async () => {
      namespace = await paymeNamespace(backend);
      // Two stores (two connection pools, as two replicas would have) share one database.
      stores.push(await namespace.open(), await namespace.open());
    });
    afterAll(async () => namespace?.drop());

    it('makes one transaction and one fulfilment of the same Create ×10 and the same Perform ×10', async () => {
      const first = paymeBench(stores[0] as SqlStore<unknown>);
      const second = paymeBench(stores[1] as SqlStore<unknown>, {}, first.orders);
      const order = first.addOrder();
      const benches = [first, second];
      const id = newPaymeId();
      const create = { id, time: PAYME_TIME, amount: AMOUNT, account: order.account };
      const creates = await Promise.all(
        Array.from({ length: COPIES }, (_, n) => benches[n % 2]?.call('CreateTransaction', create)),
      );
      const results = creates.map((answer) => answer?.result);
      expect(results.every((result) => result?.state === 1)).toBe(true);
      expect(new Set(results.map((result) => result?.transaction)).size).toBe(1);
      expect(new Set(results.map((result) => result?.create_time)).size).toBe(1);

      const performs = await Promise.all(
        Array.from({ length: COPIES }, (_, n) => benches[n % 2]?.call('PerformTransaction', { id })),
      );
      expect(performs.every((answer) => answer?.result?.state === 2)).toBe(true);
      expect(new Set(performs.map((answer) => answer?.result?.perform_time)).size).toBe(1);
      expect(await first.fulfilments(id)).toBe(1);
      const statement = await first.call('GetStatement', { from: PAYME_TIME, to: PAYME_TIME });
      const rows = ((statement.result?.transactions ?? []) as { id: string }[]).filter((entry) => entry.id === id);
      expect(rows).toHaveLength(1);
    });

    it('lets one of ×10 Creates with different ids for one order win; the others get -31050', async () => {
      const first = paymeBench(stores[0] as SqlStore<unknown>);
      const second = paymeBench(stores[1] as SqlStore<unknown>, {}, first.orders);
      const order = first.addOrder();
      const benches = [first, second];
      const answers = await Promise.all(
        Array.from({ length: COPIES }, (_, n) =>
          benches[n % 2]?.call('CreateTransaction', {
            id: newPaymeId(),
            time: PAYME_TIME,
            amount: AMOUNT,
            account: order.account,
          }),
        ),
      );
      expect(answers.filter((answer) => answer?.result?.state === 1)).toHaveLength(1);
      const refused = answers.filter((answer) => answer?.error !== undefined);
      expect(refused).toHaveLength(COPIES - 1);
      expect(refused.every((answer) => answer?.error?.code === code('-31050..-31099'))).toBe(true);
    });
  });
}
