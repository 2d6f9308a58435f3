import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import {
  ACCOUNT,
  AMOUNT,
  AUTH,
  CANCEL_REASON,
  code,
  newPaymeId,
  PAYME_ID,
  PAYME_TIME,
  SET_FISCAL_DATA,
  STATES,
} from './payme-fixtures.js';
import { FULFIL_TOPIC, type PaymeBench, paymeBench } from './payme-harness.js';
import { PAYME_BACKENDS, paymeNamespace } from './payme-stores.js';

const FIELD = Object.keys(ACCOUNT)[0] as string;
const REASON_TIMEOUT = 4;

for (const backend of PAYME_BACKENDS) {
  describe(`${backend}: Payme Merchant API engine`, () => {
    let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      namespace = await paymeNamespace(backend);
      store = await namespace.open();
    });
    afterAll(async () => namespace?.drop());

    /** Creates a transaction `id` for a new order and answers the order and the create result. */
    async function created(bench: PaymeBench, id = newPaymeId()) {
      const order = bench.addOrder();
      const answer = await bench.call('CreateTransaction', {
        id,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: order.account,
      });
      expect(answer.result?.state).toBe(1);
      return { id, order, result: answer.result as Record<string, unknown> };
    }

    it("passes the test cashier's series: credentials, amount, account, create, perform, cancel, check, statement", async () => {
      const bench = paymeBench(store);
      const order = bench.addOrder();
      const body = { amount: AMOUNT, account: order.account };
      for (const fixture of [AUTH.wrongPassword, AUTH.missing, AUTH.wrongLogin]) {
        const refused = await bench.call('CheckPerformTransaction', body, fixture.headers);
        expect(refused.error?.code).toBe(code('-32504'));
        expect(refused.result).toBeUndefined();
      }
      const wrongAmount = await bench.call('CheckPerformTransaction', { ...body, amount: AMOUNT + 100 });
      expect(wrongAmount.error?.code).toBe(code('-31001'));
      const unknown = await bench.call('CheckPerformTransaction', { ...body, account: { [FIELD]: 'no-such-order' } });
      expect(unknown.error?.code).toBeLessThanOrEqual(-31050);
      expect(unknown.error?.code).toBeGreaterThanOrEqual(-31099);
      expect(unknown.error?.data).toBe(FIELD);
      expect(Object.keys(unknown.error?.message ?? {}).sort()).toEqual(['en', 'ru', 'uz']);
      expect((await bench.call('CheckPerformTransaction', body)).result).toEqual({ allow: true });

      const create = await bench.call('CreateTransaction', { id: PAYME_ID, time: PAYME_TIME, ...body });
      expect(create).toMatchObject({ jsonrpc: '2.0', id: 7 });
      expect(create.result).toEqual({
        create_time: bench.clock.now(),
        transaction: expect.any(String),
        state: 1,
        receivers: null,
      });
      bench.clock.advance(5_000);
      const repeated = await bench.call('CreateTransaction', { id: PAYME_ID, time: PAYME_TIME, ...body });
      expect(repeated.result).toEqual(create.result);

      const perform = await bench.call('PerformTransaction', { id: PAYME_ID });
      expect(perform.result).toEqual({
        transaction: create.result?.transaction,
        perform_time: bench.clock.now(),
        state: 2,
      });
      bench.clock.advance(5_000);
      expect((await bench.call('PerformTransaction', { id: PAYME_ID })).result).toEqual(perform.result);
      expect(await bench.fulfilments(PAYME_ID)).toBe(1);

      const other = await created(bench);
      const cancel = await bench.call('CancelTransaction', { id: other.id, reason: CANCEL_REASON });
      expect(cancel.result).toEqual({
        transaction: other.result.transaction,
        cancel_time: bench.clock.now(),
        state: -1,
      });
      bench.clock.advance(5_000);
      expect((await bench.call('CancelTransaction', { id: other.id, reason: CANCEL_REASON })).result).toEqual(
        cancel.result,
      );

      const cancelPerformed = await bench.call('CancelTransaction', { id: PAYME_ID, reason: CANCEL_REASON });
      expect(cancelPerformed.result).toEqual({
        transaction: create.result?.transaction,
        cancel_time: bench.clock.now(),
        state: -2,
      });

      bench.clock.advance(5_000);
      const check = await bench.call('CheckTransaction', { id: PAYME_ID });
      expect(check.result).toEqual({
        create_time: create.result?.create_time,
        perform_time: perform.result?.perform_time,
        cancel_time: cancelPerformed.result?.cancel_time,
        transaction: create.result?.transaction,
        state: -2,
        reason: CANCEL_REASON,
      });
      const missing = await bench.call('CheckTransaction', { id: newPaymeId() });
      expect(missing.error?.code).toBe(code('-31003'));

      const statement = await bench.call('GetStatement', { from: PAYME_TIME, to: PAYME_TIME });
      const entries = statement.result?.transactions as Record<string, unknown>[];
      const first = entries.find((entry) => entry.id === PAYME_ID);
      expect(first).toEqual({
        id: PAYME_ID,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: order.account,
        create_time: create.result?.create_time,
        perform_time: perform.result?.perform_time,
        cancel_time: cancelPerformed.result?.cancel_time,
        transaction: create.result?.transaction,
        state: -2,
        reason: CANCEL_REASON,
        receivers: null,
      });
      expect(entries.find((entry) => entry.id === other.id)?.state).toBe(-1);
      const before = await bench.call('GetStatement', { from: 0, to: PAYME_TIME - 1 });
      expect(before.result?.transactions).toEqual([]);
      expect(await bench.fulfilments(PAYME_ID)).toBe(1);
    });

    it('answers Create → Cancel → Create with one id -31008 (the current state, not the first answer)', async () => {
      const bench = paymeBench(store);
      const { id, order } = await created(bench);
      expect((await bench.call('CancelTransaction', { id, reason: CANCEL_REASON })).result?.state).toBe(-1);
      const again = await bench.call('CreateTransaction', {
        id,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: order.account,
      });
      expect(again.error?.code).toBe(code('-31008'));
      expect(again.result).toBeUndefined();
    });

    it('answers Perform → Cancel → Perform -31008 and fulfils once', async () => {
      const bench = paymeBench(store);
      const { id } = await created(bench);
      expect((await bench.call('PerformTransaction', { id })).result?.state).toBe(2);
      expect((await bench.call('CancelTransaction', { id, reason: CANCEL_REASON })).result?.state).toBe(-2);
      const again = await bench.call('PerformTransaction', { id });
      expect(again.error?.code).toBe(code('-31008'));
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('cancels a transaction older than 12 hours by timeout (reason 4) and answers Perform and Create -31008', async () => {
      const bench = paymeBench(store);
      const { id, order } = await created(bench);
      bench.clock.set(PAYME_TIME + STATES.timeout_ms + 1);
      const perform = await bench.call('PerformTransaction', { id });
      expect(perform.error?.code).toBe(code('-31008'));
      const check = await bench.call('CheckTransaction', { id });
      expect(check.result).toMatchObject({
        state: -1,
        reason: REASON_TIMEOUT,
        cancel_time: bench.clock.now(),
        perform_time: 0,
      });
      expect(Object.keys(STATES.reasons)).toContain(String(REASON_TIMEOUT));
      const create = await bench.call('CreateTransaction', {
        id,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: order.account,
      });
      expect(create.error?.code).toBe(code('-31008'));
      expect(await bench.fulfilments(id)).toBe(0);

      const second = await created(bench);
      bench.clock.advance(STATES.timeout_ms + 1);
      const repeat = await bench.call('CreateTransaction', {
        id: second.id,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: second.order.account,
      });
      expect(repeat.error?.code).toBe(code('-31008'));
      expect((await bench.call('CheckTransaction', { id: second.id })).result).toMatchObject({
        state: -1,
        reason: REASON_TIMEOUT,
      });
    });

    it('refuses a second transaction for an order with a live or paid one, and allows one after a cancel', async () => {
      const bench = paymeBench(store);
      const { id, order } = await created(bench);
      const request = (other: string) => ({ id: other, time: PAYME_TIME, amount: AMOUNT, account: order.account });
      const whileLive = await bench.call('CreateTransaction', request(newPaymeId()));
      expect(whileLive.error?.code).toBe(code('-31050..-31099'));
      const check = await bench.call('CheckPerformTransaction', { amount: AMOUNT, account: order.account });
      expect(check.error?.code).toBe(code('-31008'));

      await bench.call('PerformTransaction', { id });
      const whilePaid = await bench.call('CreateTransaction', request(newPaymeId()));
      expect(whilePaid.error?.code).toBe(code('-31050..-31099'));

      const fresh = await created(bench);
      await bench.call('CancelTransaction', { id: fresh.id, reason: CANCEL_REASON });
      const retry = await bench.call('CreateTransaction', {
        id: newPaymeId(),
        time: PAYME_TIME,
        amount: AMOUNT,
        account: fresh.order.account,
      });
      expect(retry.result?.state).toBe(1);
    });

    it('refuses CancelTransaction of a performed transaction -31007 when the order cannot be cancelled', async () => {
      const bench = paymeBench(store, { canCancelPerformed: () => false });
      const { id } = await created(bench);
      await bench.call('PerformTransaction', { id });
      const cancel = await bench.call('CancelTransaction', { id, reason: CANCEL_REASON });
      expect(cancel.error?.code).toBe(code('-31007'));
      expect((await bench.call('CheckTransaction', { id })).result?.state).toBe(2);
    });

    it('rolls a perform back when the fulfilment throws (-32400), and performs once on the repeat', async () => {
      let fail = true;
      const errors: unknown[] = [];
      const outbox = new Outbox(store);
      const bench = paymeBench(store, {
        onError: (error) => errors.push(error),
        onPerformed: async (trx, tx) => {
          await outbox.enqueueOnce(trx, FULFIL_TOPIC, `${tx.paymeId}:${randomUUID()}`, {});
          if (fail) throw new Error('fulfilment queue down');
        },
      });
      const { id } = await created(bench);
      const first = await bench.call('PerformTransaction', { id });
      expect(first.error?.code).toBe(code('-32400'));
      expect(errors).toHaveLength(1);
      expect((await bench.call('CheckTransaction', { id })).result).toMatchObject({ state: 1, perform_time: 0 });
      expect(await bench.fulfilments(id)).toBe(0);
      fail = false;
      expect((await bench.call('PerformTransaction', { id })).result?.state).toBe(2);
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('refuses a CreateTransaction repeating an id with another amount (-31001) or account (-31050), changing nothing', async () => {
      const bench = paymeBench(store);
      const { id, order, result } = await created(bench);
      const other = bench.addOrder();
      const again = (amount: number, account: Record<string, unknown>) =>
        bench.call('CreateTransaction', { id, time: PAYME_TIME, amount, account });
      expect((await again(AMOUNT + 100, order.account)).error?.code).toBe(code('-31001'));
      expect((await again(AMOUNT, other.account)).error?.code).toBe(code('-31050..-31099'));
      expect((await again(AMOUNT, order.account)).result).toEqual(result);
      expect((await bench.call('PerformTransaction', { id })).result?.state).toBe(2);
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('stores SetFiscalData for a known transaction and answers -31003 for an unknown one', async () => {
      const bench = paymeBench(store);
      const { id } = await created(bench);
      // The documented request (fixtures/providers/payme/set-fiscal-data.json), with this transaction's id.
      const fiscal = SET_FISCAL_DATA.request_example.params.fiscal_data;
      const stored = await bench.call('SetFiscalData', { id, type: 'PERFORM', fiscal_data: fiscal });
      expect(stored.result).toEqual({ success: true });
      expect((await bench.call('SetFiscalData', { id, type: 'PERFORM', fiscal_data: fiscal })).result).toEqual({
        success: true,
      });
      const unknown = await bench.call('SetFiscalData', { id: newPaymeId(), type: 'CANCEL', fiscal_data: fiscal });
      expect(unknown.error?.code).toBe(code('-31003'));
      const badType = await bench.call('SetFiscalData', { id, type: 'OTHER', fiscal_data: fiscal });
      expect(badType.error?.code).toBe(code('-32600'));
    });
  });
}
