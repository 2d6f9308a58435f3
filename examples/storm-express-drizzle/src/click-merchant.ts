import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { type ClickMerchant, createClickMerchant } from 'payonce/click';
import type { ReceiptsDatabase } from 'payonce/sql';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/** The Click service the shop answers for: its `service_id` and SECRET_KEY (the merchant cabinet's). */
export interface ClickService {
  readonly serviceId: number;
  readonly secretKey: string;
}

/**
 * The shop's Click SHOP API (`POST /click/prepare`, `/click/complete` with `expressClick`): payonce's engine answers
 * both, and the shop's own rows change inside the transaction of the Click call (payonce's Kysely transaction on the
 * same PostgreSQL database), Click's `merchant_trans_id` being the order id:
 * - Prepare reserves the order for Click (`new` → `reserved`, `provider = 'click'`): no other provider takes it;
 * - Complete moves a reservation to `paid` once, writes its `paid` history row and queues the fulfilment
 *   (`outbox.enqueueOnce`, the same `order:<id>` job as the other providers');
 * - a failed payment (Complete with `error < 0`), or a newer Prepare, releases the reservation.
 * `paidOnPrepare` (STORM_EXAMPLE_BROKEN=click-paid-on-prepare) is the broken variant: the order is marked paid and
 * shipped at Prepare, before Click took any money, so a payment that then fails leaves a paid, shipped order.
 */
export function clickMerchant(shop: Shop, service: ClickService, paidOnPrepare = false): ClickMerchant {
  /** The order Click holds moves to paid, with its history row and fulfilment job, in `trx`. */
  const pay = async (trx: Transaction<ReceiptsDatabase>, orderId: string, clickTransId: number) => {
    const paid = await sql`update orders set status = 'paid'
      where id = ${orderId} and status = 'reserved' and provider = 'click'`.execute(trx);
    if (paid.numAffectedRows !== 1n) throw new Error(`order ${orderId} is not reserved by Click`); // -7
    await sql`insert into order_events (id, order_id, kind, event_id)
      values (${randomUUID()}, ${orderId}, 'paid', ${`click:${clickTransId}`})`.execute(trx);
    await shop.outbox.enqueueOnce(trx, FULFIL_TOPIC, `order:${orderId}`, { orderId });
  };
  return createClickMerchant({
    store: shop.store,
    serviceId: service.serviceId,
    secretKey: service.secretKey,
    findOrder: async (merchantTransId, trx) => {
      // Payable by Click: a UZS order that is new, or reserved by Click itself; locked for the call.
      const { rows } = await sql<{ amount_minor: number }>`select amount_minor from orders
        where id = ${merchantTransId} and currency = 'UZS'
          and (status = 'new' or (status = 'reserved' and provider = 'click')) for update`.execute(trx);
      return rows[0] === undefined ? null : { amountTiyin: rows[0].amount_minor };
    },
    onPrepared: async (trx, tx) => {
      const reserved = await sql`update orders set status = 'reserved', provider = 'click'
        where id = ${tx.merchantTransId} and status = 'new'`.execute(trx);
      if (reserved.numAffectedRows !== 1n) throw new Error(`order ${tx.merchantTransId} is not new`); // -7
      if (paidOnPrepare) await pay(trx, tx.merchantTransId, tx.clickTransId); // THE BROKEN VARIANT
    },
    onCompleted: async (trx, tx) => {
      if (!paidOnPrepare) await pay(trx, tx.merchantTransId, tx.clickTransId);
    },
    onCancelled: async (trx, tx) => {
      await sql`update orders set status = 'new', provider = null
        where id = ${tx.merchantTransId} and status = 'reserved' and provider = 'click'`.execute(trx);
    },
  });
}
