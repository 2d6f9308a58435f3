import type { Kysely } from 'kysely';
import { type Clock, systemClock } from '../core/clock.js';
import { positiveInt } from '../core/options.js';
import type { ReceiptsDatabase } from '../stores/sql/receipts-table.js';
import { tablesOf } from '../stores/sql/table-namespace.js';

/**
 * A `countStuck` function for `WebhookMetrics` that counts, store-wide, the receipts of `payonce_receipts`
 * still in `processing` whose claim is at least `olderThanMs` old (a crashed or hung worker). One indexed
 * statement per scrape (index `(status, claimed_at)` of migration 0001).
 * @param holder a SQL store (SQLite, PostgreSQL, MySQL) or anything with its Kysely `db` (and `schema`, to qualify;
 *   `tablePrefix`, what its table names start with instead of `payonce_`).
 * @throws {InvalidOption} a bad `olderThanMs`.
 * @see docs/design.md §5 "Metrics"; docs/design.md §3 "Schema".
 * @example new WebhookMetrics({ countStuck: sqlStuckReceipts(store, { olderThanMs: 60_000 }) })
 */
export function sqlStuckReceipts<DB>(
  holder: { readonly db: Kysely<DB>; readonly schema?: string | null; readonly tablePrefix?: string | null },
  options: { olderThanMs: number; clock?: Clock },
): () => Promise<number> {
  const olderThanMs = positiveInt('olderThanMs', options.olderThanMs);
  const clock = options.clock ?? systemClock;
  const db = tablesOf<ReceiptsDatabase>(holder);
  return async () => {
    const row = await db
      .selectFrom('payonce_receipts')
      .select((eb) => eb.fn.countAll().as('stuck'))
      .where('status', '=', 'processing')
      .where('claimed_at', '<=', clock.now() - olderThanMs)
      .executeTakeFirst();
    return Number(row?.stuck ?? 0);
  };
}
