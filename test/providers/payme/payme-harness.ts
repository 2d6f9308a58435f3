import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import {
  createPaymeMerchant,
  type PaymeMerchant,
  type PaymeMerchantOptions,
} from '../../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { tablesOf } from '../../../packages/payonce/src/stores/sql/table-namespace.js';
import { ACCOUNT, AMOUNT, GOOD_HEADERS, KEY, PAYME_TIME } from './payme-fixtures.js';

/** The outbox topic the test fulfilment writes; its dedupe key is `<paymeId>:<uuid>`, so every call leaves a row. */
export const FULFIL_TOPIC = 'payme.fulfil';

/** One JSON-RPC answer as Payme reads it. */
export interface RpcAnswer {
  readonly jsonrpc: string;
  readonly id: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: { ru: string; uz: string; en: string }; data?: string };
}

/** A merchant on `store` with one order per account field value; the clock starts at the fixture's `time`. */
export interface PaymeBench {
  readonly merchant: PaymeMerchant;
  readonly clock: ManualClock;
  /** Account value → order (share it with another bench to play a second replica); add orders with `addOrder`. */
  readonly orders: Map<string, { orderId: string; amountTiyin: number }>;
  addOrder(amountTiyin?: number): { account: Record<string, string>; orderId: string };
  call(method: string, params: Record<string, unknown>, headers?: Record<string, string>): Promise<RpcAnswer>;
  /** Committed fulfilment rows of the Payme transaction `paymeId`. */
  fulfilments(paymeId: string): Promise<number>;
}

export function paymeBench<DB>(
  store: SqlStore<DB>,
  options: Partial<PaymeMerchantOptions<DB>> = {},
  orders = new Map<string, { orderId: string; amountTiyin: number }>(),
): PaymeBench {
  const clock = new ManualClock(PAYME_TIME + 1_000);
  const outbox = new Outbox(store, { clock });
  const field = Object.keys(ACCOUNT)[0] as string;
  const merchant = createPaymeMerchant<DB>({
    store,
    keys: KEY,
    clock,
    accountField: field,
    findOrder: async (account) => orders.get(String(account[field])) ?? null,
    onPerformed: async (trx, tx) => {
      await outbox.enqueueOnce(trx, FULFIL_TOPIC, `${tx.paymeId}:${randomUUID()}`, { orderId: tx.orderId });
    },
    ...options,
  });
  return {
    merchant,
    clock,
    orders,
    addOrder(amountTiyin = AMOUNT) {
      // The fixture's account value for the first order, then neutral variants of it.
      const value = orders.size === 0 ? (ACCOUNT[field] as string) : `${ACCOUNT[field]}-${orders.size}`;
      const orderId = `order-${randomUUID()}`;
      orders.set(value, { orderId, amountTiyin });
      return { account: { [field]: value }, orderId };
    },
    async call(method, params, headers = GOOD_HEADERS) {
      const rawBody = JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
      const response = await merchant.handle({ rawBody, headers });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      return JSON.parse(response.body) as RpcAnswer;
    },
    async fulfilments(paymeId) {
      const rows = await tablesOf<{ payonce_outbox: { topic: string; dedupe_key: string } }>(store)
        .selectFrom('payonce_outbox')
        .select('dedupe_key')
        .where('topic', '=', FULFIL_TOPIC)
        .where('dedupe_key', 'like', `${paymeId}:%`)
        .execute();
      return rows.length;
    },
  };
}
