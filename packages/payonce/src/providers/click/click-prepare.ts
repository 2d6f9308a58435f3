import type { Transaction } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { isStoredId } from '../../core/stored-id.js';
import { tiyinFromClickAmount } from './click-amount.js';
import { CLICK_ANSWERS } from './click-answers.js';
import type { ClickContext } from './click-context.js';
import type { ClickOrder } from './click-order.js';
import { type ClickOutcome, ClickRaceLost } from './click-outcome.js';
import type { ClickCall } from './click-request.js';
import { insertPrepared, liveTransactionOf, lockTransaction, markCancelled } from './click-rows.js';
import type { ClickTransaction } from './click-transaction.js';

const answer = (error: ClickOutcome['answer'], transaction: ClickTransaction | null = null): ClickOutcome => ({
  answer: error,
  transaction,
});

/** The user's order for `merchantTransId`, checked: `null`, or `{ amountTiyin }` with a positive safe integer. */
async function orderOf<DB>(ctx: ClickContext<DB>, trx: Transaction<DB>, merchantTransId: string) {
  const order: ClickOrder | null = await ctx.findOrder(merchantTransId, trx);
  if (order !== null && (!Number.isSafeInteger(order?.amountTiyin) || order.amountTiyin <= 0)) {
    throw new InvalidOption('findOrder', 'must answer null or { amountTiyin: a positive integer }');
  }
  return order;
}

/**
 * A Prepare for a `click_trans_id` already stored, answered from the transaction's CURRENT state: another order
 * → -8; another amount → -2; completed → -4; cancelled → -9; prepared → 0 with the stored `merchant_prepare_id`,
 * unless Click sends `error < 0`, which cancels it (`onCancelled`) and answers -9.
 */
async function repeatedPrepare<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  tx: ClickTransaction,
  call: ClickCall,
): Promise<ClickOutcome> {
  if (tx.merchantTransId !== call.merchantTransId) return answer(CLICK_ANSWERS.badRequest, tx);
  if (tiyinFromClickAmount(call.amount) !== tx.amountTiyin) return answer(CLICK_ANSWERS.incorrectAmount, tx);
  if (tx.state === 'completed') return answer(CLICK_ANSWERS.alreadyPaid, tx);
  if (tx.state === 'cancelled') return answer(CLICK_ANSWERS.cancelled, tx);
  if (call.error < 0) {
    const cancelled = await markCancelled(ctx, trx, tx, call.error);
    await ctx.onCancelled(trx, cancelled);
    return answer(CLICK_ANSWERS.cancelled, cancelled);
  }
  return answer(CLICK_ANSWERS.success, tx);
}

/**
 * Prepare (action 0) inside `trx`. A known `click_trans_id` is answered from its current state (see
 * `repeatedPrepare`). A new one: the order's live transaction is completed: -4, whatever `findOrder` answers (a
 * paid order is usually no longer "payable" in the user's table, but Click must hear "already paid"); an order id
 * no row can hold, or `findOrder` → `null`: -5; `amount` not the order's (or not a sum with at most 2 decimals): -2; Click's
 * `error < 0`: -9 (nothing stored). Otherwise the order's prepared transaction of an earlier attempt, if any, is
 * cancelled (`onCancelled`; its Complete will get -9), and a prepared row is inserted (`onPrepared`, same
 * transaction): 0 with its `merchant_prepare_id`. A unique index refusing the insert, or this very `click_trans_id` found as the order's live
 * transaction (a concurrent call's), throws {@link ClickRaceLost}: the whole call runs again and finds that row.
 * A `findOrder` answer that is neither `null` nor `{ amountTiyin }` throws {@link InvalidOption} (answered -7).
 * @see https://docs.click.uz/en/click-api-request/ (Prepare); https://docs.click.uz/en/click-api-error/.
 */
export async function prepare<DB>(ctx: ClickContext<DB>, trx: Transaction<DB>, call: ClickCall): Promise<ClickOutcome> {
  const existing = await lockTransaction(ctx, trx, 'click_trans_id', call.clickTransId);
  if (existing !== null) return repeatedPrepare(ctx, trx, existing, call);
  if (!isStoredId(call.merchantTransId)) return answer(CLICK_ANSWERS.userNotFound);
  const order = await orderOf(ctx, trx, call.merchantTransId);
  const live = await liveTransactionOf(ctx, trx, call.merchantTransId);
  if (order === null)
    return answer(live?.state === 'completed' ? CLICK_ANSWERS.alreadyPaid : CLICK_ANSWERS.userNotFound);
  if (live?.clickTransId === call.clickTransId) throw new ClickRaceLost();
  if (live?.state === 'completed') return answer(CLICK_ANSWERS.alreadyPaid);
  const amountTiyin = tiyinFromClickAmount(call.amount);
  if (amountTiyin !== order.amountTiyin) return answer(CLICK_ANSWERS.incorrectAmount);
  if (call.error < 0) return answer(CLICK_ANSWERS.cancelled);
  if (live !== null) await ctx.onCancelled(trx, await markCancelled(ctx, trx, live, null));
  const created = await insertPrepared(ctx, trx, {
    clickTransId: call.clickTransId,
    clickPaydocId: call.clickPaydocId,
    serviceId: call.serviceId,
    merchantTransId: call.merchantTransId,
    amountTiyin,
  });
  if (created === null) throw new ClickRaceLost();
  await ctx.onPrepared(trx, created);
  return answer(CLICK_ANSWERS.success, created);
}
