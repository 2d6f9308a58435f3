import type { Kysely } from 'kysely';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';

/** How many `order.fulfil` jobs `payments` enqueued for `orderId` in `store`'s outbox (one per paid order). */
export async function orderFulfilJobs(store: SqlStore<unknown>, orderId: string): Promise<number> {
  const db = store.db as unknown as Kysely<{ payonce_outbox: { topic: string; dedupe_key: string } }>;
  const rows = await (store.schema ? db.withSchema(store.schema) : db)
    .selectFrom('payonce_outbox')
    .select('dedupe_key')
    .where('topic', '=', 'order.fulfil')
    .where('dedupe_key', '=', `order:${orderId}`)
    .execute();
  return rows.length;
}
