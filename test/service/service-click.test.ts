import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT,
  AMOUNT_TIYIN,
  type ClickFields,
  clickForm,
  newClickTransId,
  SECRET,
  SERVICE_ID,
} from '../providers/click/click-fixtures.js';
import type { ClickReply } from '../providers/click/click-harness.js';
import { createUzsOrder, type LocalService, startLocalService } from './local-provider-harness.js';
import { call, untilFulfilled, type ViewBody } from './service-harness.js';

describe('reference service: POST /click/prepare + /click/complete (Click SHOP API) on SQLite, no Stripe provider', () => {
  let local: LocalService;
  beforeAll(async () => {
    local = await startLocalService({ clickServiceId: SERVICE_ID, clickSecretKey: SECRET });
  });
  afterAll(async () => {
    await local?.close();
  });

  async function click(path: 'prepare' | 'complete', fields: ClickFields, secret?: string): Promise<ClickReply> {
    const response = await fetch(`${local.url}/click/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: clickForm(fields, secret),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as ClickReply;
  }
  const prepare = (order: string, id: number, amount = AMOUNT) =>
    click('prepare', { click_trans_id: id, merchant_trans_id: order, amount, action: 0 });
  const complete = (prepared: ClickReply, error = 0) =>
    click('complete', {
      click_trans_id: prepared.click_trans_id as number,
      merchant_trans_id: prepared.merchant_trans_id as string,
      merchant_prepare_id: prepared.merchant_prepare_id as number,
      amount: AMOUNT,
      action: 1,
      error,
    });
  const view = async (orderId: string) => (await call<ViewBody>(local.url, 'GET', `/orders/${orderId}`)).body;
  const newOrder = async () => {
    const orderId = `order-${randomUUID()}`;
    await createUzsOrder(local.url, orderId, AMOUNT_TIYIN);
    return orderId;
  };

  it('pays an order created by POST /orders: Prepare, Complete, a repeated Complete → paid once, fulfilled once', async () => {
    const orderId = await newOrder();
    const id = newClickTransId();
    const prepared = await prepare(orderId, id);
    expect(prepared).toMatchObject({ error: 0, merchant_prepare_id: expect.any(Number) });
    expect(await prepare(orderId, id)).toEqual(prepared);
    const completed = await complete(prepared);
    expect(completed).toMatchObject({ error: 0, merchant_confirm_id: prepared.merchant_prepare_id });
    expect(await complete(prepared)).toEqual(completed);
    const done = await untilFulfilled(local.url, orderId);
    expect(done.order).toMatchObject({ status: 'completed', amountMinor: AMOUNT_TIYIN, currency: 'UZS' });
    expect(done.attempts).toEqual([expect.objectContaining({ status: 'succeeded', providerPaymentId: String(id) })]);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
    expect(done.jobs.filter((job) => job.topic === 'order.fulfil')).toEqual([
      expect.objectContaining({ status: 'done', attempts: 1 }),
    ]);
    expect((await prepare(orderId, newClickTransId())).error).toBe(-4); // Already paid
  });

  it("a Complete carrying Click's error < 0 cancels (-9) and releases the order: a new payment pays it", async () => {
    const orderId = await newOrder();
    const failed = await prepare(orderId, newClickTransId());
    expect((await complete(failed, -5017)).error).toBe(-9);
    expect((await complete(failed)).error).toBe(-9);
    expect((await view(orderId)).attempts).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    await complete(await prepare(orderId, newClickTransId()));
    const done = await untilFulfilled(local.url, orderId);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
  });

  it('refuses a wrong signature (-1), a wrong amount (-2), an order that is not UZS or unknown (-5); nothing created', async () => {
    const orderId = await newOrder();
    const forged = await click(
      'prepare',
      { click_trans_id: newClickTransId(), merchant_trans_id: orderId, amount: AMOUNT, action: 0 },
      `${SECRET}-wrong`,
    );
    expect(forged.error).toBe(-1);
    expect((await prepare(orderId, newClickTransId(), `${Number(AMOUNT) + 1}`)).error).toBe(-2);
    const eur = await call<{ order: { id: string } }>(local.url, 'POST', '/orders', {
      body: { amountMinor: AMOUNT_TIYIN, currency: 'EUR' },
    });
    for (const other of [eur.body.order.id, 'no-such-order']) {
      expect((await prepare(other, newClickTransId())).error).toBe(-5);
    }
    expect((await view(orderId)).attempts).toEqual([]);
    expect((await view(eur.body.order.id)).attempts).toEqual([]);
  });
});
