import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { createUzumMerchant } from '../../../packages/payonce/src/providers/uzum/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace } from '../payme/payme-stores.js';
import { AMOUNT, AUTH, code, EXAMPLES, newTransId, PROTOCOL, SERVICE_ID } from './uzum-fixtures.js';
import { type UzumBench, uzumBench } from './uzum-harness.js';

const OK = PROTOCOL.http_status.success;
const FAILED = PROTOCOL.http_status.failure;

/** The protocol, call by call, on one SQLite namespace (the dialects are covered by uzum-parallel.test.ts). */
describe('Uzum Merchant API engine', () => {
  let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
  let store: SqlStore<unknown>;
  let bench: UzumBench;
  beforeAll(async () => {
    namespace = await paymeNamespace('sqlite');
    store = await namespace.open();
    bench = uzumBench(store);
  });
  afterAll(async () => namespace?.drop());

  const base = () => ({ serviceId: SERVICE_ID, timestamp: bench.clock.now() });
  const failedWith = (answer: { status: number; body: Record<string, unknown> }, errorCode: string) => {
    expect(answer.status).toBe(FAILED);
    expect(answer.body).toMatchObject({ serviceId: SERVICE_ID, status: 'FAILED', errorCode });
  };

  it('answers each auth vector of the fixtures: valid passes, every invalid one is 10001', async () => {
    const order = bench.addOrder();
    for (const vector of AUTH.vectors) {
      const answer = await bench.call('check', { ...base(), params: order.params }, vector.headers);
      if (vector.expected === 'valid') expect(answer.status, vector.reason).toBe(OK);
      else failedWith(answer, code('access denied'));
    }
  });

  it('check: OK with the params echoed as data; unknown account 10007; other serviceId 10006; bad JSON 10002; unknown path 10003; no params 10005', async () => {
    const order = bench.addOrder();
    const ok = await bench.call('check', { ...base(), params: order.params });
    expect(ok.status).toBe(OK);
    expect(Object.keys(ok.body).sort()).toEqual(Object.keys(EXAMPLES.check.response_ok.body).sort());
    const [name, value] = Object.entries(order.params)[0] as [string, string];
    expect(ok.body).toMatchObject({ serviceId: SERVICE_ID, status: 'OK', data: { [name]: { value } } });
    failedWith(
      await bench.call('check', { ...base(), params: { [name]: 'no-such-order' } }),
      code('additional payment'),
    );
    failedWith(
      await bench.call('check', { ...base(), serviceId: SERVICE_ID + 1, params: order.params }),
      code('invalid serviceId'),
    );
    failedWith(await bench.call('pay', { ...base(), params: order.params }), code('invalid (unknown) operation'));
    failedWith(await bench.call('check', { ...base() }), code('required parameters'));
    const raw = await bench.merchant.handle({
      path: '/check',
      rawBody: '{not json',
      headers: AUTH.vectors[0]?.headers ?? {},
    });
    expect(raw.status).toBe(FAILED);
    expect(JSON.parse(raw.body)).toMatchObject({ status: 'FAILED', errorCode: code('JSON parsing') });
  });

  it('create → repeat → confirm → repeat → status: one transaction, one fulfilment, repeats answered from the stored times', async () => {
    const order = bench.addOrder();
    const transId = newTransId();
    const create = { ...base(), transId, params: order.params, amount: AMOUNT };
    const created = await bench.call('create', create);
    expect(created.status).toBe(OK);
    expect(Object.keys(created.body).sort()).toEqual(Object.keys(EXAMPLES.create.response_ok.body).sort());
    expect(created.body).toMatchObject({ transId, status: 'CREATED', amount: AMOUNT });
    bench.clock.advance(1_000);
    expect((await bench.call('create', create)).body).toEqual(created.body);
    failedWith(await bench.call('check', { ...base(), params: order.params }), code('payment already made'));

    const confirmed = await bench.call('confirm', { ...base(), transId });
    expect(Object.keys(confirmed.body).sort()).toEqual(Object.keys(EXAMPLES.confirm.response_ok.body).sort());
    expect(confirmed.body).toMatchObject({ transId, status: 'CONFIRMED', confirmTime: bench.clock.now() });
    bench.clock.advance(1_000);
    expect((await bench.call('confirm', { ...base(), transId })).body).toEqual(confirmed.body);
    expect(await bench.fulfilments(transId)).toBe(1);

    const status = await bench.call('status', { ...base(), transId });
    expect(Object.keys(status.body).sort()).toEqual(Object.keys(EXAMPLES.status.response_ok.body).sort());
    expect(status.body).toMatchObject({
      status: 'CONFIRMED',
      transTime: created.body.transTime,
      confirmTime: confirmed.body.confirmTime,
      reverseTime: null,
    });
    failedWith(await bench.call('create', create), code('payment already made'));
    failedWith(await bench.call('create', { ...create, transId: newTransId() }), code('payment already made'));
  });

  it('refuses a wrong amount (10011) and a second transaction for an order with a live one (10008)', async () => {
    const order = bench.addOrder();
    const create = { ...base(), transId: newTransId(), params: order.params, amount: AMOUNT };
    failedWith(await bench.call('create', { ...create, amount: AMOUNT + 1 }), code('invalid amount'));
    expect((await bench.call('create', create)).status).toBe(OK);
    failedWith(await bench.call('create', { ...create, amount: AMOUNT + 1 }), code('invalid amount'));
    failedWith(await bench.call('create', { ...create, transId: newTransId() }), code('payment already made'));
    failedWith(await bench.call('create', { ...create, amount: 0 }), code('required parameters'));
  });

  it('out of order: confirm or reverse or status before create is 10014; reverse before confirm cancels, then confirm is 10015 and create 10009', async () => {
    const order = bench.addOrder();
    const transId = newTransId();
    for (const operation of ['confirm', 'reverse', 'status']) {
      failedWith(await bench.call(operation, { ...base(), transId }), code('transaction (transId) not found'));
    }
    const create = { ...base(), transId, params: order.params, amount: AMOUNT };
    expect((await bench.call('create', create)).status).toBe(OK);
    const reversed = await bench.call('reverse', { ...base(), transId });
    expect(Object.keys(reversed.body).sort()).toEqual(Object.keys(EXAMPLES.reverse.response_ok.body).sort());
    expect(reversed.body).toMatchObject({ status: 'REVERSED', reverseTime: bench.clock.now() });
    bench.clock.advance(1_000);
    expect((await bench.call('reverse', { ...base(), transId })).body).toEqual(reversed.body);
    expect(bench.reversed.filter((id) => id === transId)).toHaveLength(1);
    failedWith(await bench.call('confirm', { ...base(), transId }), code('transaction cancelled'));
    failedWith(await bench.call('create', create), code('payment cancelled'));
    expect(await bench.fulfilments(transId)).toBe(0);
    // The order is payable again by another transaction.
    expect((await bench.call('create', { ...create, transId: newTransId() })).status).toBe(OK);
  });

  it('reverse after confirm: REVERSED with the confirm time kept, onReversed once, the fulfilment not repeated', async () => {
    const order = bench.addOrder();
    const transId = newTransId();
    await bench.call('create', { ...base(), transId, params: order.params, amount: AMOUNT });
    const confirmed = await bench.call('confirm', { ...base(), transId });
    bench.clock.advance(5_000);
    expect((await bench.call('reverse', { ...base(), transId })).body).toMatchObject({ status: 'REVERSED' });
    const status = await bench.call('status', { ...base(), transId });
    expect(status.body).toMatchObject({ status: 'REVERSED', confirmTime: confirmed.body.confirmTime });
    expect(status.body.reverseTime).toBe(bench.clock.now());
    failedWith(await bench.call('confirm', { ...base(), transId }), code('transaction cancelled'));
    expect(await bench.fulfilments(transId)).toBe(1);
    expect(bench.reversed.filter((id) => id === transId)).toHaveLength(1);
  });

  it('a throwing onConfirmed rolls the confirm back and answers 99999; the repeat confirms once', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const failing = uzumBench(store, {
      onConfirmed: () => {
        if (fail) throw new Error('fulfilment down');
      },
      onError: (error) => errors.push(error),
    });
    const order = failing.addOrder();
    const transId = newTransId();
    await failing.call('create', { ...base(), transId, params: order.params, amount: AMOUNT });
    expect((await failing.call('confirm', { ...base(), transId })).body).toMatchObject({
      errorCode: code('error while'),
    });
    expect(errors).toHaveLength(1);
    expect((await failing.call('status', { ...base(), transId })).body).toMatchObject({ status: 'CREATED' });
    fail = false;
    expect((await failing.call('confirm', { ...base(), transId })).body).toMatchObject({ status: 'CONFIRMED' });
    expect((await failing.merchant.find(transId))?.status).toBe('CONFIRMED');
    expect(await failing.merchant.find('bad\u0000id')).toBeNull();
  });

  it('checks its options with InvalidOption', () => {
    const good = { store, login: 'l', password: 'p', serviceId: 1, findOrder: async () => null, onConfirmed: () => {} };
    expect(() => createUzumMerchant({ ...good, serviceId: 0 })).toThrow(InvalidOption);
    expect(() => createUzumMerchant({ ...good, password: '' })).toThrow(InvalidOption);
    expect(() => createUzumMerchant({ ...good, store: {} as never })).toThrow(InvalidOption);
    expect(() => createUzumMerchant({ ...good, onConfirmed: undefined as never })).toThrow(InvalidOption);
  });
});
