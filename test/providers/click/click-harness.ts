import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import {
  type ClickMerchant,
  type ClickMerchantOptions,
  createClickMerchant,
} from '../../../packages/payonce/src/providers/click/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import {
  AMOUNT,
  AMOUNT_TIYIN,
  type ClickFields,
  clickForm,
  newClickTransId,
  SECRET,
  SERVICE_ID,
} from './click-fixtures.js';

/** The outbox topic the test fulfilment writes; its dedupe key is `<click_trans_id>:<uuid>`: every call leaves a row. */
export const FULFIL_TOPIC = 'click.fulfil';

/** One JSON answer as Click reads it. */
export interface ClickReply {
  readonly click_trans_id: number | null;
  readonly merchant_trans_id: string | null;
  readonly merchant_prepare_id?: number | null;
  readonly merchant_confirm_id?: number | null;
  readonly error: number;
  readonly error_note: string;
}

export interface ClickBench {
  readonly merchant: ClickMerchant;
  readonly clock: ManualClock;
  /** merchant_trans_id → amount in tiyin (share it with another bench to play a second replica). */
  readonly orders: Map<string, number>;
  /** Cancelled transactions seen by `onCancelled`, by click_trans_id. */
  readonly cancelled: number[];
  addOrder(amountTiyin?: number): string;
  send(fields: ClickFields, secret?: string): Promise<ClickReply>;
  /** Prepare with a fresh click_trans_id (or `clickTransId`) for `order`. */
  prepare(order: string, clickTransId?: number, amount?: string): Promise<ClickReply>;
  /** Complete of a prepared answer. */
  complete(prepared: ClickReply, error?: number, amount?: string): Promise<ClickReply>;
  /** Committed fulfilment rows of `clickTransId`. */
  fulfilments(clickTransId: number): Promise<number>;
}

export function clickBench<DB>(
  store: SqlStore<DB>,
  options: Partial<ClickMerchantOptions<DB>> = {},
  orders = new Map<string, number>(),
): ClickBench {
  const clock = new ManualClock(1_700_000_000_000);
  const outbox = new Outbox(store, { clock });
  const cancelled: number[] = [];
  const merchant = createClickMerchant<DB>({
    store,
    serviceId: SERVICE_ID,
    secretKey: SECRET,
    clock,
    findOrder: async (id) => (orders.has(id) ? { amountTiyin: orders.get(id) as number } : null),
    onCompleted: async (trx, tx) => {
      await outbox.enqueueOnce(trx, FULFIL_TOPIC, `${tx.clickTransId}:${randomUUID()}`, { order: tx.merchantTransId });
    },
    onCancelled: (_trx, tx) => {
      cancelled.push(tx.clickTransId);
    },
    ...options,
  });
  async function send(fields: ClickFields, secret?: string): Promise<ClickReply> {
    const response = await merchant.handle({ rawBody: clickForm(fields, secret) });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return JSON.parse(response.body) as ClickReply;
  }
  return {
    merchant,
    clock,
    orders,
    cancelled,
    addOrder(amountTiyin = AMOUNT_TIYIN) {
      const id = `order-${randomUUID()}`;
      orders.set(id, amountTiyin);
      return id;
    },
    send,
    prepare: (order, clickTransId = newClickTransId(), amount = AMOUNT) =>
      send({ click_trans_id: clickTransId, merchant_trans_id: order, amount, action: 0 }),
    complete: (prepared, error = 0, amount = AMOUNT) =>
      send({
        click_trans_id: prepared.click_trans_id as number,
        merchant_trans_id: prepared.merchant_trans_id as string,
        merchant_prepare_id: prepared.merchant_prepare_id as number,
        amount,
        action: 1,
        error,
      }),
    async fulfilments(clickTransId) {
      const db = store.db as unknown as Kysely<{ payonce_outbox: { topic: string; dedupe_key: string } }>;
      const rows = await (store.schema ? db.withSchema(store.schema) : db)
        .selectFrom('payonce_outbox')
        .select('dedupe_key')
        .where('topic', '=', FULFIL_TOPIC)
        .where('dedupe_key', 'like', `${clickTransId}:%`)
        .execute();
      return rows.length;
    },
  };
}
