import { type Kysely, sql, type Transaction } from 'kysely';
import { insertUnlessDuplicate } from '../../outbox/insert-unless-duplicate.js';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import { noteProviderTransaction } from '../provider-span.js';
import type { UzumContext } from './uzum-context.js';
import { UZUM_TRANSACTIONS_TABLE, type UzumDatabase } from './uzum-tables.js';
import { toUzumTransaction, type UzumTransaction } from './uzum-transaction.js';

/** The engine's table inside `trx`, qualified with the store's schema. */
function on<DB>(ctx: UzumContext<DB>, trx: Transaction<DB>): Kysely<UzumDatabase> {
  return tablesIn<UzumDatabase>(ctx.store, trx);
}

const isSqlite = <DB>(ctx: UzumContext<DB>) => ctx.store.dialect.name === 'sqlite';

/**
 * Locks and reads the transaction `transId` (`null` if absent) for the rest of `trx`: `SELECT … FOR UPDATE` on
 * PostgreSQL and MySQL; on SQLite, which has no row locks, a no-op UPDATE first takes the database write lock.
 */
export async function lockUzumTransaction<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  transId: string,
): Promise<UzumTransaction | null> {
  const db = on(ctx, trx);
  if (isSqlite(ctx)) {
    await db
      .updateTable(UZUM_TRANSACTIONS_TABLE)
      .set({ status: sql`status` })
      .where('trans_id', '=', transId)
      .execute();
  }
  const row = await db
    .selectFrom(UZUM_TRANSACTIONS_TABLE)
    .selectAll()
    .where('trans_id', '=', transId)
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  if (row === undefined) return null;
  noteProviderTransaction({ providerTransactionId: row.trans_id, orderId: row.order_id });
  return toUzumTransaction(row);
}

/** The live (CREATED or CONFIRMED) transaction of `orderId`, locked, or `null`. */
export async function liveUzumTransactionOf<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  orderId: string,
): Promise<UzumTransaction | null> {
  const row = await on(ctx, trx)
    .selectFrom(UZUM_TRANSACTIONS_TABLE)
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', 'in', ['CREATED', 'CONFIRMED'])
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  return row === undefined ? null : toUzumTransaction(row);
}

/** What a new transaction row is made of. */
export interface NewUzumTransaction {
  readonly transId: string;
  readonly orderId: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly amountTiyin: number;
  readonly data: Readonly<Record<string, { readonly value: string }>>;
}

/**
 * Inserts a CREATED transaction (transTime now) and answers it, or `null` when a unique index refused it: the same
 * transId, or a live transaction of the same order, written by a concurrent call (the caller runs its whole
 * transaction again, which then finds that row).
 */
export async function insertUzumTransaction<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  fresh: NewUzumTransaction,
): Promise<UzumTransaction | null> {
  const row = {
    trans_id: fresh.transId,
    order_id: fresh.orderId,
    params: JSON.stringify(fresh.params),
    amount_tiyin: fresh.amountTiyin,
    status: 'CREATED',
    data: JSON.stringify(fresh.data),
    trans_time: ctx.clock.now(),
    confirm_time: null,
    reverse_time: null,
  };
  const inserted = await insertUnlessDuplicate(
    ctx.store.dialect,
    on(ctx, trx).insertInto(UZUM_TRANSACTIONS_TABLE).values(row),
  );
  if (!inserted) return null;
  noteProviderTransaction({ providerTransactionId: row.trans_id, orderId: row.order_id });
  return toUzumTransaction(row);
}

/** Sets CONFIRMED and `confirm_time` = now on a locked transaction; answers the new row. */
export async function markUzumConfirmed<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  tx: UzumTransaction,
): Promise<UzumTransaction> {
  const confirmTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(UZUM_TRANSACTIONS_TABLE)
    .set({ status: 'CONFIRMED', confirm_time: confirmTime })
    .where('trans_id', '=', tx.transId)
    .execute();
  return Object.freeze({ ...tx, status: 'CONFIRMED' as const, confirmTime });
}

/** Sets REVERSED and `reverse_time` = now on a locked transaction; answers the new row. */
export async function markUzumReversed<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  tx: UzumTransaction,
): Promise<UzumTransaction> {
  const reverseTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(UZUM_TRANSACTIONS_TABLE)
    .set({ status: 'REVERSED', reverse_time: reverseTime })
    .where('trans_id', '=', tx.transId)
    .execute();
  return Object.freeze({ ...tx, status: 'REVERSED' as const, reverseTime });
}
