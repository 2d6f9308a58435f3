import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, AMOUNT, AUTH, CANCEL_REASON, code, KEY, newPaymeId } from '../providers/payme/payme-fixtures.js';
import { call, type Harness, startHarness, until, untilFulfilled, type ViewBody } from './service-harness.js';

/** The account field of the fixtures' cashbox (`order_id` in Payme's examples). */
const FIELD = Object.keys(ACCOUNT)[0] as string;

interface RpcAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly data?: string };
}

describe('reference service: POST /payme (Payme Merchant API) on SQLite', () => {
  let h: Harness;
  let url: string;
  let serial = 0;
  beforeAll(async () => {
    h = await startHarness({ paymeKeys: KEY, paymeAccountField: FIELD });
    url = h.service.url;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function rpc(method: string, params: Record<string, unknown>, headers = AUTH.valid.headers) {
    serial += 1;
    const response = await fetch(`${url}/payme`, {
      method: 'POST',
      headers: new Headers({ ...headers, 'Content-Type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: serial, method, params }),
    });
    if (response.status !== 200) throw new Error(`/payme answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as RpcAnswer;
  }

  /** A UZS order with a caller-chosen id (placeholder), created through POST /orders. */
  async function uzsOrder(amountMinor = AMOUNT): Promise<string> {
    const orderId = `order-${newPaymeId()}`;
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { orderId, amountMinor, currency: 'UZS' },
    });
    expect(created.status).toBe(201);
    expect(created.body.order.id).toBe(orderId);
    return orderId;
  }

  async function createAndPerform(orderId: string) {
    const id = newPaymeId();
    const account = { [FIELD]: orderId };
    const check = await rpc('CheckPerformTransaction', { amount: AMOUNT, account });
    expect(check.result).toEqual({ allow: true });
    const created = await rpc('CreateTransaction', { id, time: Date.now(), amount: AMOUNT, account });
    expect(created.result).toMatchObject({ state: 1 });
    const performed = await rpc('PerformTransaction', { id });
    expect(performed.result).toMatchObject({ state: 2 });
    return { id, account, performed };
  }

  const view = async (orderId: string) => (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;

  it('pays an order created by POST /orders: Create, Perform, a repeated Perform → paid once, fulfilled once', async () => {
    const orderId = await uzsOrder();
    const { id, performed } = await createAndPerform(orderId);
    const again = await rpc('PerformTransaction', { id });
    expect(again.result).toEqual(performed.result);
    const done = await untilFulfilled(url, orderId);
    expect(done.order).toMatchObject({ status: 'completed', amountMinor: AMOUNT, currency: 'UZS' });
    expect(done.attempts).toEqual([expect.objectContaining({ status: 'succeeded', providerPaymentId: id })]);
    expect(done.order.paidAttemptId).toBe(done.attempts[0]?.id);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
    expect(done.jobs.filter((job) => job.topic === 'order.fulfil')).toEqual([
      expect.objectContaining({ status: 'done', attempts: 1 }),
    ]);
  });

  it('the same POST /orders again answers the same order; another amount for that id is 409 ORDER_ID_TAKEN', async () => {
    const orderId = await uzsOrder();
    const same = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { orderId, amountMinor: AMOUNT, currency: 'UZS' },
    });
    expect(same.status).toBe(201);
    expect(same.body.order.id).toBe(orderId);
    const other = await call(url, 'POST', '/orders', { body: { orderId, amountMinor: AMOUNT + 1, currency: 'UZS' } });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'ORDER_ID_TAKEN' });
    const bad = await call(url, 'POST', '/orders', { body: { orderId: 'a b', amountMinor: AMOUNT, currency: 'UZS' } });
    expect(bad.status).toBe(400);
  });

  it('Cancel after Perform refunds the order (one refund row) and a Perform after it is -31008', async () => {
    const orderId = await uzsOrder();
    const { id } = await createAndPerform(orderId);
    await untilFulfilled(url, orderId);
    const cancelled = await rpc('CancelTransaction', { id, reason: CANCEL_REASON });
    expect(cancelled.result).toMatchObject({ state: -2 });
    expect((await rpc('PerformTransaction', { id })).error?.code).toBe(code('-31008'));
    const refunded = await until(
      async () => {
        const body = await view(orderId);
        return body.order.status === 'refunded' && body.refunds.length === 1 ? body : null;
      },
      10_000,
      `order ${orderId} to be refunded`,
    );
    expect(refunded.fulfilments).toHaveLength(1);
    expect(refunded.paidTransitions).toBe(1);
  });

  it('Cancel before Perform releases the order: a new transaction can pay it', async () => {
    const orderId = await uzsOrder();
    const account = { [FIELD]: orderId };
    const first = newPaymeId();
    await rpc('CreateTransaction', { id: first, time: Date.now(), amount: AMOUNT, account });
    expect((await rpc('CancelTransaction', { id: first, reason: CANCEL_REASON })).result).toMatchObject({ state: -1 });
    const cancelledView = await view(orderId);
    expect(cancelledView.attempts).toEqual([
      expect.objectContaining({ status: 'cancelled', providerPaymentId: first }),
    ]);
    await createAndPerform(orderId);
    const done = await untilFulfilled(url, orderId);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
  });

  it('refuses an order not awaiting payment (paid, not UZS, unknown) with -31050 and the account field', async () => {
    const paid = await uzsOrder();
    await createAndPerform(paid);
    const eur = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: AMOUNT, currency: 'EUR' },
    });
    for (const orderId of [paid, eur.body.order.id, 'no-such-order']) {
      const answer = await rpc('CheckPerformTransaction', { amount: AMOUNT, account: { [FIELD]: orderId } });
      expect(answer.error).toMatchObject({ code: code('-31050..-31099'), data: FIELD });
    }
    const wrongAmount = await rpc('CheckPerformTransaction', {
      amount: AMOUNT + 100,
      account: { [FIELD]: await uzsOrder() },
    });
    expect(wrongAmount.error?.code).toBe(code('-31001'));
  });

  it('a wrong key or no Authorization is -32504 and changes nothing', async () => {
    const orderId = await uzsOrder();
    for (const headers of [AUTH.wrongPassword.headers, AUTH.missing.headers]) {
      const answer = await rpc(
        'CreateTransaction',
        { id: newPaymeId(), time: Date.now(), amount: AMOUNT, account: { [FIELD]: orderId } },
        headers,
      );
      expect(answer.error?.code).toBe(code('-32504'));
    }
    expect((await view(orderId)).attempts).toEqual([]);
  });

  it('warns at start when the stored Payme key is not the configured one (never logging either key)', async () => {
    const started = async (paymeKeys: string) => {
      const logs: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
      const other = await startHarness({ databaseUrl: h.databaseUrl, paymeKeys, paymeAccountField: FIELD, logger });
      await other.close();
      return logs.join('');
    };
    expect(await started(KEY)).not.toContain('payonce_payme_keys holds another key');
    const rotated = await started(`${KEY}-rotated`);
    expect(rotated).toContain('payonce_payme_keys holds another key');
    expect(rotated).not.toContain(KEY);
  });
});
