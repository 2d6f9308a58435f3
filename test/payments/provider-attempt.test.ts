import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { OrderIdTaken } from '../../packages/payonce/src/payments/order-id-taken.js';
import { OrderNotPayable } from '../../packages/payonce/src/payments/order-not-payable.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';

const MONEY = { amountMinor: 500_000, currency: 'UZS' };
const REF = { provider: 'payme', paymentId: 'placeholder-payment-1' };

/** Orders with a caller's id and attempts a provider starts (`createOrder({ id })`, `openProviderAttempt`), SQLite. */
describe('sqlite: createOrder with an id, openProviderAttempt', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payments: Payments<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
  });
  afterAll(async () => backend?.drop());

  it('a chosen id: the same order again answers it, another amount or principal is OrderIdTaken', async () => {
    const order = await payments.createOrder('customer-a', MONEY, undefined, { id: 'shop-1001' });
    expect(order.id).toBe('shop-1001');
    expect((await payments.createOrder('customer-a', MONEY, undefined, { id: 'shop-1001' })).id).toBe('shop-1001');
    await expect(
      payments.createOrder('customer-a', { ...MONEY, amountMinor: 1 }, undefined, { id: 'shop-1001' }),
    ).rejects.toBeInstanceOf(OrderIdTaken);
    await expect(payments.createOrder('customer-b', MONEY, undefined, { id: 'shop-1001' })).rejects.toBeInstanceOf(
      OrderIdTaken,
    );
  });

  it('opens one pending attempt (a repeat answers it), refuses a second, and a succeeded event pays the order once', async () => {
    const order = await payments.createOrder('customer-a', MONEY);
    const open = () => transaction(store, (trx) => payments.openProviderAttempt(trx, order.id, REF));
    const attempt = await open();
    expect(attempt).toMatchObject({ provider: 'payme', providerPaymentId: REF.paymentId, status: 'pending' });
    expect((await open()).id).toBe(attempt.id);
    const other = { ...REF, paymentId: 'placeholder-payment-2' };
    await expect(
      transaction(store, (trx) => payments.openProviderAttempt(trx, order.id, other)),
    ).rejects.toBeInstanceOf(OrderNotPayable);
    expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
    const paid = await transaction(store, (trx) =>
      payments.applyProviderEvent(
        {
          provider: 'payme',
          key: new RequestKey('payme', `perform:${REF.paymentId}`),
          eventType: 'payme.PerformTransaction',
          status: 'succeeded',
          paymentId: REF.paymentId,
          amountMinor: MONEY.amountMinor,
          currency: MONEY.currency,
          merchantReference: null,
          occurredAtMs: null,
          orderId: order.id,
        },
        trx,
      ),
    );
    expect(paid).toMatchObject({ decision: 'applied', becamePaid: true });
    await expect(open()).rejects.toBeInstanceOf(OrderNotPayable);
    const locked = await transaction(store, (trx) => payments.lockOrderIn(trx, order.id));
    expect(locked).toMatchObject({ order: { status: 'paid' }, activeAttempt: null });
  });
});
