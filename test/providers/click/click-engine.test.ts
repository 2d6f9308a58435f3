import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { PAYME_BACKENDS as SQL_BACKENDS, paymeNamespace as sqlNamespace } from '../payme/payme-stores.js';
import { AMOUNT, AMOUNT_TIYIN, newClickTransId, noteOf, ORDER, SECRET } from './click-fixtures.js';
import { clickBench } from './click-harness.js';

for (const backend of SQL_BACKENDS) {
  describe(`${backend}: Click SHOP API engine`, () => {
    let namespace: Awaited<ReturnType<typeof sqlNamespace>>;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      namespace = await sqlNamespace(backend);
      store = await namespace.open();
    });
    afterAll(async () => namespace?.drop());

    it('pays an order: Prepare, repeated Prepare, Complete, repeated Complete, answered from the current state', async () => {
      const bench = clickBench(store);
      bench.orders.set(ORDER, AMOUNT_TIYIN);
      const id = newClickTransId();
      const prepared = await bench.prepare(ORDER, id);
      expect(prepared).toEqual({
        click_trans_id: id,
        merchant_trans_id: ORDER,
        merchant_prepare_id: expect.any(Number),
        error: 0,
        error_note: noteOf(0),
      });
      bench.clock.advance(5_000);
      expect(await bench.prepare(ORDER, id, `${AMOUNT}.00`)).toEqual(prepared);

      const completed = await bench.complete(prepared);
      expect(completed).toEqual({
        click_trans_id: id,
        merchant_trans_id: ORDER,
        merchant_confirm_id: prepared.merchant_prepare_id,
        error: 0,
        error_note: noteOf(0),
      });
      expect(await bench.complete(prepared)).toEqual(completed);
      expect(await bench.fulfilments(id)).toBe(1);
      // After the Complete, the same Prepare is -4 (paid), and so is a new attempt for the order.
      expect((await bench.prepare(ORDER, id)).error).toBe(-4);
      expect((await bench.prepare(ORDER)).error).toBe(-4);
      // A shop whose findOrder no longer answers a paid order (status no longer 'new'): still -4, not -5.
      bench.orders.delete(ORDER);
      expect((await bench.prepare(ORDER)).error).toBe(-4);
      bench.orders.set(ORDER, AMOUNT_TIYIN);
      // A failed-payment Complete for a completed transaction cannot cancel it: -4.
      expect((await bench.complete(prepared, -5017)).error).toBe(-4);
      const stored = await bench.merchant.find(id);
      expect(stored).toMatchObject({ state: 'completed', amountTiyin: AMOUNT_TIYIN, merchantTransId: ORDER });
      expect(stored?.completeTime).toBe(bench.clock.now());
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('cancels on a Complete carrying error < 0 (-9), and answers -9 to every later Complete and Prepare', async () => {
      const bench = clickBench(store);
      const order = bench.addOrder();
      const prepared = await bench.prepare(order);
      const failed = await bench.complete(prepared, -5017);
      expect(failed).toMatchObject({ error: -9, error_note: noteOf(-9), merchant_confirm_id: null });
      expect((await bench.complete(prepared)).error).toBe(-9);
      expect((await bench.complete(prepared, -5017)).error).toBe(-9);
      expect((await bench.prepare(order, prepared.click_trans_id as number)).error).toBe(-9);
      expect(bench.cancelled).toEqual([prepared.click_trans_id]);
      expect(await bench.merchant.find(prepared.click_trans_id as number)).toMatchObject({
        state: 'cancelled',
        clickError: -5017,
      });
      expect(await bench.fulfilments(prepared.click_trans_id as number)).toBe(0);
      // The order is free again: a new attempt pays it.
      const retry = await bench.prepare(order);
      expect(retry.error).toBe(0);
      expect((await bench.complete(retry)).error).toBe(0);
    });

    it('answers each error code in its case: -1, -2, -3, -5, -6, -7, -8', async () => {
      const failing = clickBench(store, {
        onCompleted: () => {
          throw new Error('fulfilment store down');
        },
        onError: (error) => errors.push(error),
      });
      const errors: unknown[] = [];
      const bench = clickBench(store, {}, failing.orders);
      const order = bench.addOrder();
      const id = newClickTransId();
      const base = { click_trans_id: id, merchant_trans_id: order, amount: AMOUNT, action: 0 };
      expect((await bench.send(base, `${SECRET}x`)).error).toBe(-1);
      expect((await bench.send({ ...base, amount: '999' })).error).toBe(-2);
      expect((await bench.send({ ...base, amount: `${AMOUNT}.001` })).error).toBe(-2);
      expect((await bench.send({ ...base, action: 2 })).error).toBe(-3);
      expect((await bench.send({ ...base, merchant_trans_id: 'no-such-order' })).error).toBe(-5);
      expect((await bench.send({ ...base, service_id: 1 })).error).toBe(-8);
      expect((await bench.send({ ...base, click_trans_id: 'abc' })).error).toBe(-8);
      const missing = await bench.merchant.handle({ rawBody: 'click_trans_id=1&action=0' });
      expect(JSON.parse(missing.body)).toMatchObject({ error: -8, error_note: noteOf(-8), merchant_prepare_id: null });

      const prepared = await bench.prepare(order, id);
      expect(prepared.error).toBe(0);
      const prepareId = prepared.merchant_prepare_id as number;
      const complete = { ...base, action: 1, merchant_prepare_id: prepareId };
      expect((await bench.send({ ...complete, merchant_prepare_id: prepareId + 1_000_000 })).error).toBe(-6);
      expect((await bench.send({ ...complete, click_trans_id: newClickTransId() })).error).toBe(-6);
      expect((await bench.send({ ...complete, merchant_prepare_id: undefined })).error).toBe(-8);
      expect((await bench.send({ ...complete, amount: '1' })).error).toBe(-2);
      const refused = await failing.complete(prepared);
      expect(refused).toMatchObject({ error: -7, error_note: noteOf(-7), merchant_confirm_id: null });
      expect(errors).toHaveLength(1);
      expect(await bench.merchant.find(id)).toMatchObject({ state: 'prepared', completeTime: null });
      // Nothing was committed: Click's retry (or this merchant, fixed) completes it once.
      expect((await bench.complete(prepared)).error).toBe(0);
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('keeps one live transaction per order: a new attempt replaces a prepared one, whose Complete gets -9', async () => {
      const bench = clickBench(store);
      const order = bench.addOrder();
      const first = await bench.prepare(order);
      const second = await bench.prepare(order);
      expect(second.error).toBe(0);
      expect(second.merchant_prepare_id).not.toBe(first.merchant_prepare_id);
      expect(bench.cancelled).toEqual([first.click_trans_id]);
      expect((await bench.complete(first)).error).toBe(-9);
      expect((await bench.complete(second)).error).toBe(0);
      expect((await bench.prepare(order)).error).toBe(-4);
      expect(await bench.fulfilments(first.click_trans_id as number)).toBe(0);
      expect(await bench.fulfilments(second.click_trans_id as number)).toBe(1);
    });
  });
}
