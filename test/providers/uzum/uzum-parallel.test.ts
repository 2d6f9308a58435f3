import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { PAYME_BACKENDS, paymeNamespace } from '../payme/payme-stores.js';
import { AMOUNT, code, newTransId, SERVICE_ID } from './uzum-fixtures.js';
import { uzumBench } from './uzum-harness.js';

const COPIES = 10;

for (const backend of PAYME_BACKENDS) {
  describe(`${backend}: Uzum webhooks in parallel`, () => {
    let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
    const stores: SqlStore<unknown>[] = [];
    beforeAll(async () => {
      namespace = await paymeNamespace(backend);
      // Two stores (two connection pools, as two replicas would have) share one database.
      stores.push(await namespace.open(), await namespace.open());
    });
    afterAll(async () => namespace?.drop());

    it('makes one transaction and one onConfirmed of create+confirm ×10 for one order', async () => {
      const first = uzumBench(stores[0] as SqlStore<unknown>);
      const second = uzumBench(stores[1] as SqlStore<unknown>, {}, first.orders);
      const order = first.addOrder();
      const benches = [first, second];
      const transId = newTransId();
      const base = { serviceId: SERVICE_ID, timestamp: first.clock.now(), transId };
      const answers = await Promise.all(
        Array.from({ length: COPIES }, async (_, n) => {
          const bench = benches[n % 2] ?? first;
          const created = await bench.call('create', { ...base, params: order.params, amount: AMOUNT });
          const confirmed = await bench.call('confirm', base);
          return { created, confirmed };
        }),
      );
      // A create that arrives after another copy's confirm meets a paid transaction: 10008, as the protocol says.
      for (const { created } of answers) {
        if (created.body.status !== 'CREATED') expect(created.body.errorCode).toBe(code('payment already made'));
      }
      expect(new Set(answers.map(({ created }) => created.body.transTime).filter(Boolean)).size).toBe(1);
      expect(answers.every(({ confirmed }) => confirmed.body.status === 'CONFIRMED')).toBe(true);
      expect(new Set(answers.map(({ confirmed }) => confirmed.body.confirmTime)).size).toBe(1);
      expect(await first.fulfilments(transId)).toBe(1);
    });

    it('lets one of ×10 creates with different transIds for one order win; the others get 10008', async () => {
      const first = uzumBench(stores[0] as SqlStore<unknown>);
      const second = uzumBench(stores[1] as SqlStore<unknown>, {}, first.orders);
      const order = first.addOrder();
      const benches = [first, second];
      const answers = await Promise.all(
        Array.from({ length: COPIES }, (_, n) =>
          (benches[n % 2] ?? first).call('create', {
            serviceId: SERVICE_ID,
            timestamp: first.clock.now(),
            transId: newTransId(),
            params: order.params,
            amount: AMOUNT,
          }),
        ),
      );
      expect(answers.filter((answer) => answer.body.status === 'CREATED')).toHaveLength(1);
      const refused = answers.filter((answer) => answer.body.status === 'FAILED');
      expect(refused).toHaveLength(COPIES - 1);
      expect(refused.every((answer) => answer.body.errorCode === code('payment already made'))).toBe(true);
    });
  });
}
