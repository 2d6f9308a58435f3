import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { ReceiptsDatabase } from 'payonce/sql';
import { createUzumMerchant, type UzumMerchant, type UzumTransaction } from 'payonce/uzum';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/** The Uzum Bank credentials the shop answers for: Basic login and password, and its service id. */
export interface UzumService {
  readonly login: string;
  readonly password: string;
  readonly serviceId: number;
}

/**
 * The shop's Uzum Bank Merchant API (`POST /uzum/check`, `/create`, `/confirm`, `/reverse`, `/status` with
 * `expressUzum`): payonce's engine answers every operation, and the shop's own rows change inside the transaction of
 * the Uzum call (payonce's Kysely transaction on the same PostgreSQL database), `params.account` naming the order:
 * - /create reserves the order for Uzum (`new` → `reserved`, `provider = 'uzum'`);
 * - /confirm moves a reservation to `paid` once, writes its `paid` history row and queues the fulfilment
 *   (`outbox.enqueueOnce`, the same `order:<id>` job as the other providers');
 * - /reverse before /confirm releases the reservation; after it (the money goes back) marks the order `refunded`
 *   with a `refunded` history row.
 * `ignoreRefunds` (STORM_EXAMPLE_BROKEN=uzum-no-refund) is the broken variant: a reverse after /confirm is ignored,
 * so the shop keeps an order paid whose money Uzum Bank gave back.
 */
export function uzumMerchant(shop: Shop, service: UzumService, ignoreRefunds = false): UzumMerchant {
  const history = (trx: Transaction<ReceiptsDatabase>, tx: UzumTransaction, kind: string) =>
    sql`insert into order_events (id, order_id, kind, event_id)
      values (${randomUUID()}, ${tx.orderId}, ${kind}, ${`uzum:${tx.transId}`})`.execute(trx);
  return createUzumMerchant({
    store: shop.store,
    ...service,
    findOrder: async (params, trx) => {
      // A UZS order that is new, or Uzum's own (reserved or paid by it: the engine then answers 10008 from its live
      // transaction, not 10007 "no such order"); locked for the call.
      const { rows } = await sql<{ id: string; amount_minor: number }>`select id, amount_minor from orders
        where id = ${String(params.account)} and currency = 'UZS'
          and (status = 'new' or (provider = 'uzum' and status in ('reserved', 'paid', 'fulfilled')))
        for update`.execute(trx);
      const order = rows[0];
      return order === undefined ? null : { orderId: order.id, amountTiyin: order.amount_minor };
    },
    onCreated: async (trx, tx) => {
      const reserved = await sql`update orders set status = 'reserved', provider = 'uzum'
        where id = ${tx.orderId} and status = 'new'`.execute(trx);
      if (reserved.numAffectedRows !== 1n) throw new Error(`order ${tx.orderId} is not new`); // 99999
    },
    onConfirmed: async (trx, tx) => {
      const paid = await sql`update orders set status = 'paid'
        where id = ${tx.orderId} and status = 'reserved' and provider = 'uzum'`.execute(trx);
      if (paid.numAffectedRows !== 1n) throw new Error(`order ${tx.orderId} is not reserved by Uzum`);
      await history(trx, tx, 'paid');
      await shop.outbox.enqueueOnce(trx, FULFIL_TOPIC, `order:${tx.orderId}`, { orderId: tx.orderId });
    },
    onReversed: async (trx, tx) => {
      if (tx.confirmTime === null) {
        await sql`update orders set status = 'new', provider = null
          where id = ${tx.orderId} and status = 'reserved' and provider = 'uzum'`.execute(trx);
        return;
      }
      if (ignoreRefunds) return; // THE BROKEN VARIANT: Uzum Bank gave the money back, the shop still shows it paid
      const refunded = await sql`update orders set status = 'refunded'
        where id = ${tx.orderId} and status in ('paid', 'fulfilled') and provider = 'uzum'`.execute(trx);
      if (refunded.numAffectedRows === 1n) await history(trx, tx, 'refunded');
    },
  });
}
