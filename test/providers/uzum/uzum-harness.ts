import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import {
  createUzumMerchant,
  type UzumMerchant,
  type UzumMerchantOptions,
} from '../../../packages/payonce/src/providers/uzum/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { AMOUNT, AUTH, EXAMPLES, GOOD_HEADERS, PARAMS, SERVICE_ID } from './uzum-fixtures.js';

/** The outbox topic the test fulfilment writes; its dedupe key is `<transId>:<uuid>`, so every call leaves a row. */
export const FULFIL_TOPIC = 'uzum.fulfil';

/** One answer as Uzum Bank reads it. */
export interface UzumAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A merchant on `store` with one order per account value; the clock starts at the fixtures' timestamp. */
export interface UzumBench {
  readonly merchant: UzumMerchant;
  readonly clock: ManualClock;
  readonly orders: Map<string, { orderId: string; amountTiyin: number }>;
  /** Reversals seen by `onReversed`, by transId. */
  readonly reversed: string[];
  addOrder(amountTiyin?: number): { params: Record<string, string>; orderId: string };
  call(operation: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<UzumAnswer>;
  /** Committed fulfilment rows of the transaction `transId`. */
  fulfilments(transId: string): Promise<number>;
}

export function uzumBench<DB>(
  store: SqlStore<DB>,
  options: Partial<UzumMerchantOptions<DB>> = {},
  orders = new Map<string, { orderId: string; amountTiyin: number }>(),
): UzumBench {
  const clock = new ManualClock(EXAMPLES.create.request.timestamp as number);
  const outbox = new Outbox(store, { clock });
  const field = Object.keys(PARAMS)[0] as string;
  const reversed: string[] = [];
  const merchant = createUzumMerchant<DB>({
    store,
    login: AUTH.login,
    password: AUTH.password,
    serviceId: SERVICE_ID,
    clock,
    findOrder: async (params) => orders.get(String(params[field])) ?? null,
    onConfirmed: async (trx, tx) => {
      await outbox.enqueueOnce(trx, FULFIL_TOPIC, `${tx.transId}:${randomUUID()}`, { orderId: tx.orderId });
    },
    onReversed: (_trx, tx) => {
      reversed.push(tx.transId);
    },
    ...options,
  });
  return {
    merchant,
    clock,
    orders,
    reversed,
    addOrder(amountTiyin = AMOUNT) {
      const value = `${PARAMS[field]}-${orders.size}-${randomUUID().slice(0, 8)}`;
      const orderId = `order-${randomUUID()}`;
      orders.set(value, { orderId, amountTiyin });
      return { params: { [field]: value }, orderId };
    },
    async call(operation, body, headers = GOOD_HEADERS) {
      const response = await merchant.handle({ path: `/uzum/${operation}`, rawBody: JSON.stringify(body), headers });
      return { status: response.status, body: JSON.parse(response.body) as Record<string, unknown> };
    },
    async fulfilments(transId) {
      const db = store.db as unknown as Kysely<{ payonce_outbox: { topic: string; dedupe_key: string } }>;
      const rows = await (store.schema ? db.withSchema(store.schema) : db)
        .selectFrom('payonce_outbox')
        .select('dedupe_key')
        .where('topic', '=', FULFIL_TOPIC)
        .where('dedupe_key', 'like', `${transId}:%`)
        .execute();
      return rows.length;
    },
  };
}
