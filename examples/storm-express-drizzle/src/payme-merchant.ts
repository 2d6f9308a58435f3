import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { createPaymeMerchant, type PaymeMerchant, type PaymeTransaction } from 'payonce/payme';
import type { ReceiptsDatabase } from 'payonce/sql';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/**
 * The shop's Payme Merchant API (`POST /payme` with `expressPayme`): payonce's engine answers every method, and the
 * shop's own rows change inside the transaction of the Payme call (payonce's Kysely transaction on the same
 * PostgreSQL database, so the order, its history row, the fulfilment job and Payme's transaction commit together):
 * - Create reserves the order for Payme (`new` → `reserved`, `provider = 'payme'`), so no other provider takes it;
 * - Perform moves a reservation to `paid` once, writes its `paid` history row and queues the fulfilment
 *   (`outbox.enqueueOnce`, the same `order:<id>` job as the Stripe webhook's);
 * - Cancel of state 1 releases the reservation; of state 2 (Payme gives the money back) marks the order `refunded`
 *   with a `refunded` history row.
 * `brokenRefunds` (STORM_EXAMPLE_BROKEN=payme-no-refund) is the broken variant: the refund (state -2) is ignored, so
 * the shop keeps an order paid that Payme refunded. Payme's account field is `order_id`, amounts are tiyin (UZS).
 */
export function paymeMerchant(shop: Shop, key: string, brokenRefunds = false): PaymeMerchant {
  const history = (trx: Transaction<ReceiptsDatabase>, orderId: string, kind: string, tx: PaymeTransaction) =>
    sql`insert into order_events (id, order_id, kind, event_id)
      values (${randomUUID()}, ${orderId}, ${kind}, ${`payme:${tx.paymeId}`})`.execute(trx);
  return createPaymeMerchant({
    store: shop.store,
    keys: key,
    accountField: 'order_id',
    findOrder: async (account, trx) => {
      // Payable by Payme: a UZS order that is new, or reserved by Payme itself; locked for the call.
      const { rows } = await sql<{ id: string; amount_minor: number }>`select id, amount_minor from orders
        where id = ${String(account.order_id)} and currency = 'UZS'
          and (status = 'new' or (status = 'reserved' and provider = 'payme')) for update`.execute(trx);
      const order = rows[0];
      return order === undefined ? null : { orderId: order.id, amountTiyin: order.amount_minor };
    },
    onCreated: async (trx, tx) => {
      const reserved = await sql`update orders set status = 'reserved', provider = 'payme'
        where id = ${tx.orderId} and status = 'new'`.execute(trx);
      if (reserved.numAffectedRows !== 1n) throw new Error(`order ${tx.orderId} is not new`); // rolled back, -32400
    },
    onPerformed: async (trx, tx) => {
      const paid = await sql`update orders set status = 'paid'
        where id = ${tx.orderId} and status = 'reserved' and provider = 'payme'`.execute(trx);
      if (paid.numAffectedRows !== 1n) throw new Error(`order ${tx.orderId} is not reserved by Payme`);
      await history(trx, tx.orderId, 'paid', tx);
      await shop.outbox.enqueueOnce(trx, FULFIL_TOPIC, `order:${tx.orderId}`, { orderId: tx.orderId });
    },
    onCancelled: async (trx, tx) => {
      if (tx.state === -1) {
        await sql`update orders set status = 'new', provider = null
          where id = ${tx.orderId} and status = 'reserved' and provider = 'payme'`.execute(trx);
        return;
      }
      if (brokenRefunds) return; // THE BROKEN VARIANT: Payme refunded, the shop still shows the order paid
      const refunded = await sql`update orders set status = 'refunded'
        where id = ${tx.orderId} and status in ('paid', 'fulfilled') and provider = 'payme'`.execute(trx);
      if (refunded.numAffectedRows === 1n) await history(trx, tx.orderId, 'refunded', tx);
    },
  });
}
