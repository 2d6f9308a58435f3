import { type Kysely, sql, type Transaction } from 'kysely';
import { insertUnlessDuplicate } from '../../outbox/insert-unless-duplicate.js';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import type { ClickContext } from './click-context.js';
import { CLICK_TRANSACTIONS_TABLE, type ClickDatabase } from './click-tables.js';
import { CLICK_STATE_CODES, type ClickTransaction, toClickTransaction } from './click-transaction.js';

type Column = 'click_trans_id' | 'merchant_prepare_id';

function on<DB>(ctx: ClickContext<DB>, trx: Transaction<DB>): Kysely<ClickDatabase> {
  return tablesIn<ClickDatabase>(ctx.store, trx);
}

const isSqlite = <DB>(ctx: ClickContext<DB>) => ctx.store.dialect.name === 'sqlite';

/**
 * Locks and reads the transaction whose `column` is `value` (`null` if absent) for the rest of `trx`:
 * `SELECT … FOR UPDATE` on PostgreSQL and MySQL; on SQLite, which has no row locks, a no-op UPDATE first takes the
 * database write lock.
 */
export async function lockTransaction<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  column: Column,
  value: number,
): Promise<ClickTransaction | null> {
  const db = on(ctx, trx);
  if (isSqlite(ctx)) {
    await db.updateTable(CLICK_TRANSACTIONS_TABLE).set({ state: sql`state` }).where(column, '=', value).execute();
  }
  const row = await db
    .selectFrom(CLICK_TRANSACTIONS_TABLE)
    .selectAll()
    .where(column, '=', value)
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  return row === undefined ? null : toClickTransaction(row);
}

/** The live (prepared or completed) transaction of the order `merchantTransId`, locked, or `null`. */
export async function liveTransactionOf<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  merchantTransId: string,
): Promise<ClickTransaction | null> {
  const row = await on(ctx, trx)
    .selectFrom(CLICK_TRANSACTIONS_TABLE)
    .selectAll()
    .where('merchant_trans_id', '=', merchantTransId)
    .where('state', 'in', [CLICK_STATE_CODES.prepared, CLICK_STATE_CODES.completed])
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  return row === undefined ? null : toClickTransaction(row);
}

/** What a new (prepared) transaction row is made of. */
export interface NewClickTransaction {
  readonly clickTransId: number;
  readonly clickPaydocId: number | null;
  readonly serviceId: number;
  readonly merchantTransId: string;
  readonly amountTiyin: number;
}

/**
 * Inserts a prepared transaction (its `merchant_prepare_id` given by the database) and answers it, or `null` when a
 * unique index refused it: the same `click_trans_id`, or a live transaction of the same order, written by a
 * concurrent call (the caller retries its whole transaction, which then finds that row).
 */
export async function insertPrepared<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  fresh: NewClickTransaction,
): Promise<ClickTransaction | null> {
  const row = {
    click_trans_id: fresh.clickTransId,
    click_paydoc_id: fresh.clickPaydocId,
    service_id: fresh.serviceId,
    merchant_trans_id: fresh.merchantTransId,
    amount_tiyin: fresh.amountTiyin,
    state: CLICK_STATE_CODES.prepared,
    click_error: null,
    prepare_time: ctx.clock.now(),
    complete_time: null,
    cancel_time: null,
  };
  const inserted = await insertUnlessDuplicate(
    ctx.store.dialect,
    on(ctx, trx).insertInto(CLICK_TRANSACTIONS_TABLE).values(row),
  );
  if (!inserted) return null;
  return lockTransaction(ctx, trx, 'click_trans_id', fresh.clickTransId);
}

/** Sets `completed` and `complete_time` = now on a locked prepared transaction; answers the new row. */
export async function markCompleted<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  tx: ClickTransaction,
): Promise<ClickTransaction> {
  const completeTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(CLICK_TRANSACTIONS_TABLE)
    .set({ state: CLICK_STATE_CODES.completed, complete_time: completeTime })
    .where('merchant_prepare_id', '=', tx.merchantPrepareId)
    .execute();
  return Object.freeze({ ...tx, state: 'completed' as const, completeTime });
}

/**
 * Sets `cancelled`, Click's negative `error` (`null` when a newer Prepare replaced the transaction) and
 * `cancel_time` = now on a locked prepared transaction; answers the new row.
 */
export async function markCancelled<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  tx: ClickTransaction,
  clickError: number | null,
): Promise<ClickTransaction> {
  const cancelTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(CLICK_TRANSACTIONS_TABLE)
    .set({ state: CLICK_STATE_CODES.cancelled, click_error: clickError, cancel_time: cancelTime })
    .where('merchant_prepare_id', '=', tx.merchantPrepareId)
    .execute();
  return Object.freeze({ ...tx, state: 'cancelled' as const, clickError, cancelTime });
}
