import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { eventAbout } from './payments-fixtures.js';

/** `applyProviderEvent(event, trx, { receiptHeld: true })`: the caller's transaction holds the event's receipt. */
describe('sqlite: applying an event under a receipt the caller holds', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payments: Payments<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
  });
  afterAll(async () => backend?.drop());

  const paymentsReceipts = async () =>
    Number(
      (
        await sql<{ n: number }>`select count(*) as n from payonce_receipts where provider like 'payments:%'`.execute(
          store.db,
        )
      ).rows[0]?.n,
    );

  it('applies it in the transaction with no payments receipt, and rolls back with it', async () => {
    const order = await payments.createOrder('customer-a', { amountMinor: 1999, currency: 'EUR' });
    const opened = await payments.openCheckout(order.id, 'customer-a');
    if (opened.kind !== 'attempt') throw new Error(opened.kind);
    const event = eventAbout(opened.attempt);
    await expect(
      transaction(store, async (trx) => {
        await payments.applyProviderEvent(event, trx, { receiptHeld: true });
        throw new Error('the caller failed after it');
      }),
    ).rejects.toThrow('the caller failed after it');
    expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
    expect(await payments.journalOf(order.id)).toHaveLength(1); // the checkout's answer only
    const result = await transaction(store, (trx) => payments.applyProviderEvent(event, trx, { receiptHeld: true }));
    expect(result).toMatchObject({ decision: 'applied', becamePaid: true, duplicate: false });
    expect((await payments.findOrder(order.id))?.status).toBe('paid');
    expect(await paymentsReceipts()).toBe(0);
  });

  it('answers a plain apply of an event applied under a held receipt as a duplicate (a mode switched meanwhile)', async () => {
    const order = await payments.createOrder('customer-a', { amountMinor: 1999, currency: 'EUR' });
    const opened = await payments.openCheckout(order.id, 'customer-a');
    if (opened.kind !== 'attempt') throw new Error(opened.kind);
    const event = eventAbout(opened.attempt);
    await transaction(store, (trx) => payments.applyProviderEvent(event, trx, { receiptHeld: true }));
    for (let i = 0; i < 2; i++) {
      expect(await payments.applyProviderEvent(event)).toMatchObject({
        decision: 'applied',
        becamePaid: false,
        duplicate: true,
      });
    }
    expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
    expect((await payments.journalOf(order.id)).filter((row) => row.eventId === event.key?.externalId)).toHaveLength(1);
  });

  it('refuses receiptHeld without the transaction that holds the receipt, or as no boolean', async () => {
    const order = await payments.createOrder('customer-a', { amountMinor: 1999, currency: 'EUR' });
    const opened = await payments.openCheckout(order.id, 'customer-a');
    if (opened.kind !== 'attempt') throw new Error(opened.kind);
    const event = eventAbout(opened.attempt);
    await expect(payments.applyProviderEvent(event, undefined, { receiptHeld: true })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(
      transaction(store, (trx) => payments.applyProviderEvent(event, trx, { receiptHeld: 'yes' as never })),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
  });
});
