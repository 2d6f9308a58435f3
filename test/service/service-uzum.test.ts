import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT as CLICK_AMOUNT,
  AMOUNT_TIYIN as CLICK_AMOUNT_TIYIN,
  SERVICE_ID as CLICK_SERVICE,
  clickForm,
  newClickTransId,
  SECRET,
} from '../providers/click/click-fixtures.js';
import { AMOUNT, AUTH, code, GOOD_HEADERS, newTransId, SERVICE_ID } from '../providers/uzum/uzum-fixtures.js';
import { createUzsOrder, type LocalService, startLocalService } from './local-provider-harness.js';
import { call, until, untilFulfilled, type ViewBody } from './service-harness.js';

interface UzumAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

describe('reference service: POST /uzum/* (Uzum Bank Merchant API) on SQLite, no Stripe provider', () => {
  let local: LocalService;
  beforeAll(async () => {
    local = await startLocalService({
      uzumLogin: AUTH.login,
      uzumPassword: AUTH.password,
      uzumServiceId: SERVICE_ID,
      clickServiceId: CLICK_SERVICE,
      clickSecretKey: SECRET,
    });
  });
  afterAll(async () => {
    await local?.close();
  });

  async function uzum(operation: string, body: Record<string, unknown>, headers = GOOD_HEADERS): Promise<UzumAnswer> {
    const response = await fetch(`${local.url}/uzum/${operation}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ serviceId: SERVICE_ID, timestamp: Date.now(), ...body }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const view = async (orderId: string) => (await call<ViewBody>(local.url, 'GET', `/orders/${orderId}`)).body;
  const newOrder = async () => {
    const orderId = `order-${randomUUID()}`;
    await createUzsOrder(local.url, orderId, AMOUNT);
    return orderId;
  };
  const create = (orderId: string, transId: string) =>
    uzum('create', { transId, params: { account: orderId }, amount: AMOUNT });

  it('pays an order created by POST /orders: check, create, confirm, a repeated confirm, status → paid once, fulfilled once', async () => {
    const orderId = await newOrder();
    const transId = newTransId();
    expect(await uzum('check', { params: { account: orderId } })).toMatchObject({
      status: 200,
      body: { status: 'OK' },
    });
    expect(await create(orderId, transId)).toMatchObject({ status: 200, body: { status: 'CREATED', amount: AMOUNT } });
    const confirmed = await uzum('confirm', { transId });
    expect(confirmed).toMatchObject({ status: 200, body: { status: 'CONFIRMED', confirmTime: expect.any(Number) } });
    expect(await uzum('confirm', { transId })).toEqual(confirmed);
    const status = await uzum('status', { transId });
    expect(status.body).toMatchObject({ status: 'CONFIRMED', confirmTime: confirmed.body.confirmTime });
    const done = await untilFulfilled(local.url, orderId);
    expect(done.order).toMatchObject({ status: 'completed', amountMinor: AMOUNT, currency: 'UZS' });
    expect(done.attempts).toEqual([expect.objectContaining({ status: 'succeeded', providerPaymentId: transId })]);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
    expect(done.jobs.filter((job) => job.topic === 'order.fulfil')).toEqual([
      expect.objectContaining({ status: 'done', attempts: 1 }),
    ]);
    const paid = code('payment already made');
    expect((await uzum('check', { params: { account: orderId } })).body.errorCode).toBe(paid);
    expect((await create(orderId, newTransId())).body.errorCode).toBe(paid);
  });

  it('reverse before confirm cancels and releases the order; reverse after confirm refunds it (one refund row)', async () => {
    const orderId = await newOrder();
    const first = newTransId();
    await create(orderId, first);
    expect((await uzum('reverse', { transId: first })).body).toMatchObject({ status: 'REVERSED' });
    expect((await uzum('confirm', { transId: first })).body.errorCode).toBe(code('transaction cancelled'));
    expect((await view(orderId)).attempts).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    const second = newTransId();
    await create(orderId, second);
    await uzum('confirm', { transId: second });
    await untilFulfilled(local.url, orderId);
    expect((await uzum('reverse', { transId: second })).body).toMatchObject({ status: 'REVERSED' });
    const refunded = await until(
      async () => {
        const body = await view(orderId);
        return body.order.status === 'refunded' && body.refunds.length === 1 ? body : null;
      },
      10_000,
      `order ${orderId} to be refunded`,
    );
    expect(refunded.paidTransitions).toBe(1);
    expect(refunded.fulfilments).toHaveLength(1);
  });

  it('one active attempt across providers: an order Click has prepared is not payable by Uzum (10007)', async () => {
    const orderId = `order-${randomUUID()}`;
    const amountTiyin = CLICK_AMOUNT_TIYIN;
    await createUzsOrder(local.url, orderId, amountTiyin);
    const fields = { click_trans_id: newClickTransId(), merchant_trans_id: orderId, amount: CLICK_AMOUNT, action: 0 };
    const prepared = await fetch(`${local.url}/click/prepare`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: clickForm(fields),
    });
    expect(((await prepared.json()) as { error: number }).error).toBe(0);
    expect((await uzum('check', { params: { account: orderId } })).body.errorCode).toBe(code('additional payment'));
    const created = await uzum('create', { transId: newTransId(), params: { account: orderId }, amount: amountTiyin });
    expect(created.body.errorCode).toBe(code('additional payment'));
    expect((await view(orderId)).attempts).toEqual([expect.objectContaining({ provider: 'click', status: 'pending' })]);
  });

  it('bad Basic auth is 10001 and creates nothing; another serviceId 10006; another amount 10011', async () => {
    const orderId = await newOrder();
    for (const vector of AUTH.vectors.filter((v) => v.expected === 'invalid')) {
      const answer = await uzum(
        'create',
        { transId: newTransId(), params: { account: orderId }, amount: AMOUNT },
        vector.headers,
      );
      expect(answer).toMatchObject({ status: 400, body: { status: 'FAILED', errorCode: code('access denied') } });
    }
    const foreign = await uzum('create', {
      serviceId: SERVICE_ID + 1,
      transId: newTransId(),
      params: { account: orderId },
      amount: AMOUNT,
    });
    expect(foreign.body.errorCode).toBe(code('invalid serviceId'));
    const wrongAmount = await uzum('create', {
      transId: newTransId(),
      params: { account: orderId },
      amount: AMOUNT + 1,
    });
    expect(wrongAmount.body.errorCode).toBe(code('invalid amount'));
    expect((await view(orderId)).attempts).toEqual([]);
  });
});
