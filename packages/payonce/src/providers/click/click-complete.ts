import type { Transaction } from 'kysely';
import { tiyinFromClickAmount } from './click-amount.js';
import { CLICK_ANSWERS } from './click-answers.js';
import type { ClickContext } from './click-context.js';
import type { ClickOutcome } from './click-outcome.js';
import type { ClickCall } from './click-request.js';
import { lockTransaction, markCancelled, markCompleted } from './click-rows.js';

/**
 * Complete (action 1) inside `trx`, on the transaction `merchant_prepare_id` names, locked, answered from its
 * CURRENT state:
 * - unknown `merchant_prepare_id`, or one of another `click_trans_id` or order → -6;
 * - cancelled → -9 (also every Complete after a failed-payment Complete);
 * - completed → -4 when Click sends `error < 0` (it cannot be cancelled), -2 for another amount, else 0 with the
 *   stored `merchant_confirm_id` (a repeat never runs `onCompleted` again);
 * - prepared → -2 for another amount (nothing changes); Click's `error < 0` cancels it (`onCancelled`) and answers
 *   -9; else it is completed and `onCompleted` runs in the SAME transaction, answering 0. A throwing `onCompleted`
 *   rolls everything back (answered -7).
 * @see https://docs.click.uz/en/click-api-request/ (Complete); https://docs.click.uz/en/click-api-error/ ("< 0 …
 *   the supplier should cancel the payment in the billing system and return the error code -9").
 */
export async function complete<DB>(
  ctx: ClickContext<DB>,
  trx: Transaction<DB>,
  call: ClickCall,
): Promise<ClickOutcome> {
  const tx = await lockTransaction(ctx, trx, 'merchant_prepare_id', call.merchantPrepareId ?? 0);
  if (tx === null || tx.clickTransId !== call.clickTransId || tx.merchantTransId !== call.merchantTransId) {
    return { answer: CLICK_ANSWERS.transactionNotFound, transaction: null };
  }
  if (tx.state === 'cancelled') return { answer: CLICK_ANSWERS.cancelled, transaction: tx };
  if (tx.state === 'completed' && call.error < 0) return { answer: CLICK_ANSWERS.alreadyPaid, transaction: tx };
  if (tiyinFromClickAmount(call.amount) !== tx.amountTiyin) {
    return { answer: CLICK_ANSWERS.incorrectAmount, transaction: tx };
  }
  if (tx.state === 'completed') return { answer: CLICK_ANSWERS.success, transaction: tx };
  if (call.error < 0) {
    const cancelled = await markCancelled(ctx, trx, tx, call.error);
    await ctx.onCancelled(trx, cancelled);
    return { answer: CLICK_ANSWERS.cancelled, transaction: cancelled };
  }
  const completed = await markCompleted(ctx, trx, tx);
  await ctx.onCompleted(trx, completed);
  return { answer: CLICK_ANSWERS.success, transaction: completed };
}
