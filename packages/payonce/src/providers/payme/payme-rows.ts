import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { insertUnlessDuplicate } from '../../outbox/insert-unless-duplicate.js';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import { noteProviderTransaction } from '../provider-span.js';
import type { PaymeContext } from './payme-context.js';
import { PAYME_TRANSACTIONS_TABLE, type PaymeDatabase } from './payme-tables.js';
import { type PaymeState, type PaymeTransaction, toPaymeTransaction } from './payme-transaction.js';

/** The engine's tables inside `trx`, qualified with the store's schema. */
function on<DB>(ctx: PaymeContext<DB>, trx: Transaction<DB>): Kysely<PaymeDatabase> {
  return tablesIn<PaymeDatabase>(ctx.store, trx);
}

const isSqlite = <DB>(ctx: PaymeContext<DB>) => ctx.store.dialect.name === 'sqlite';

/**
 * Locks and reads the transaction `paymeId` (`null` if absent) for the rest of `trx`: `SELECT … FOR UPDATE` on
 * PostgreSQL and MySQL; on SQLite, which has no row locks, a no-op UPDATE first takes the database write lock.
 */
export async function lockTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  paymeId: string,
): Promise<PaymeTransaction | null> {
  const db = on(ctx, trx);
  if (isSqlite(ctx)) {
    await db.updateTable(PAYME_TRANSACTIONS_TABLE).set({ state: sql`state` }).where('payme_id', '=', paymeId).execute();
  }
  const row = await db
    .selectFrom(PAYME_TRANSACTIONS_TABLE)
    .selectAll()
    .where('payme_id', '=', paymeId)
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  if (row === undefined) return null;
  noteProviderTransaction({ providerTransactionId: row.payme_id, orderId: row.order_id });
  return toPaymeTransaction(row);
}

/** The live (state 1 or 2) transaction of `orderId`, locked, or `null`. */
export async function liveTransactionOf<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  orderId: string,
): Promise<PaymeTransaction | null> {
  const row = await on(ctx, trx)
    .selectFrom(PAYME_TRANSACTIONS_TABLE)
    .selectAll()
    .where('order_id', '=', orderId)
    .where('state', 'in', [1, 2])
    .$if(!isSqlite(ctx), (query) => query.forUpdate())
    .executeTakeFirst();
  return row === undefined ? null : toPaymeTransaction(row);
}

/** What a new transaction row is made of. */
export interface NewPaymeTransaction {
  readonly paymeId: string;
  readonly orderId: string;
  readonly account: Readonly<Record<string, unknown>>;
  readonly amountTiyin: number;
  readonly paymeTime: number;
}

/**
 * Inserts a transaction in state 1 (created now) and answers it, or `null` when a unique index refused it: the same
 * Payme id, or a live transaction of the same order, written by a concurrent call (the caller retries its whole
 * transaction, which then finds that row).
 */
export async function insertTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  fresh: NewPaymeTransaction,
): Promise<PaymeTransaction | null> {
  const row = {
    payme_id: fresh.paymeId,
    transaction_id: randomUUID(),
    order_id: fresh.orderId,
    account: JSON.stringify(fresh.account),
    amount_tiyin: fresh.amountTiyin,
    state: 1,
    reason: null,
    payme_time: fresh.paymeTime,
    create_time: ctx.clock.now(),
    perform_time: null,
    cancel_time: null,
    fiscal_perform: null,
    fiscal_cancel: null,
  };
  const inserted = await insertUnlessDuplicate(
    ctx.store.dialect,
    on(ctx, trx).insertInto(PAYME_TRANSACTIONS_TABLE).values(row),
  );
  if (!inserted) return null;
  noteProviderTransaction({ providerTransactionId: row.payme_id, orderId: row.order_id });
  return toPaymeTransaction(row);
}

/** Sets state 2 and `perform_time` = now on a locked transaction; answers the new row. */
export async function markPerformed<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  tx: PaymeTransaction,
): Promise<PaymeTransaction> {
  const performTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(PAYME_TRANSACTIONS_TABLE)
    .set({ state: 2, perform_time: performTime })
    .where('payme_id', '=', tx.paymeId)
    .execute();
  return Object.freeze({ ...tx, state: 2 as const, performTime });
}

/** Sets state `to` (-1 or -2), `reason` and `cancel_time` = now on a locked transaction; answers the new row. */
export async function markCancelled<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  tx: PaymeTransaction,
  to: Extract<PaymeState, -1 | -2>,
  reason: number,
): Promise<PaymeTransaction> {
  const cancelTime = ctx.clock.now();
  await on(ctx, trx)
    .updateTable(PAYME_TRANSACTIONS_TABLE)
    .set({ state: to, reason, cancel_time: cancelTime })
    .where('payme_id', '=', tx.paymeId)
    .execute();
  return Object.freeze({ ...tx, state: to, reason, cancelTime });
}

/** Stores the fiscal data of the PERFORM or CANCEL receipt of a transaction; false when there is no such id. */
export async function storeFiscalData<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  paymeId: string,
  type: 'PERFORM' | 'CANCEL',
  fiscalData: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  const column = type === 'PERFORM' ? 'fiscal_perform' : 'fiscal_cancel';
  const result = await on(ctx, trx)
    .updateTable(PAYME_TRANSACTIONS_TABLE)
    .set({ [column]: JSON.stringify(fiscalData) })
    .where('payme_id', '=', paymeId)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return true;
  // MySQL counts changed rows only: the same data stored again changes none.
  return (await lockTransaction(ctx, trx, paymeId)) !== null;
}

/**
 * Transactions whose Payme `time` lies in [fromMs, toMs] (epoch ms, both inclusive), oldest first (then by Payme
 * id): GetStatement's rows. `db` is the engine's tables, already qualified with the store's schema (`tablesIn`
 * inside a call's transaction, `tablesOf` outside one), so a reader outside the engine (the operator console) gets
 * exactly the rows GetStatement answers. @see fixtures payme/rpc/GetStatement.json.
 */
export async function transactionsBetween(
  db: Kysely<PaymeDatabase>,
  fromMs: number,
  toMs: number,
): Promise<PaymeTransaction[]> {
  const rows = await db
    .selectFrom(PAYME_TRANSACTIONS_TABLE)
    .selectAll()
    .where('payme_time', '>=', fromMs)
    .where('payme_time', '<=', toMs)
    .orderBy('payme_time')
    .orderBy('payme_id')
    .execute();
  return rows.map(toPaymeTransaction);
}
