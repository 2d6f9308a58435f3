import type { Transaction } from 'kysely';
import type { PaymeContext } from './payme-context.js';
import { cancelExpired } from './payme-create.js';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import { isExpired, type PaymeOutcome } from './payme-outcome.js';
import { idParam, intParam } from './payme-request.js';
import { lockTransaction, markCancelled, markPerformed } from './payme-rows.js';

/**
 * PerformTransaction on the locked row: state 1 → state 2 with perform_time = now, and the user's `onPerformed` in
 * the SAME transaction (so it runs exactly once: a repeat finds state 2); state 1 past the timeout → cancelled
 * (state -1, reason 4, `onCancelled` called) and -31008; state 2 → the STORED perform_time; -1/-2 → -31008; unknown id → -31003.
 * @see fixtures payme/idempotency-rules.json (PerformTransaction rules); payme/rpc/PerformTransaction.json.
 */
export async function performTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const tx = await lockTransaction(ctx, trx, idParam(params, 'id'));
  if (tx === null) return { error: paymeError(PAYME_ERROR_CODES.transactionNotFound) };
  if (tx.state === 1) {
    if (isExpired(tx, ctx.clock.now(), ctx.timeoutMs)) {
      await cancelExpired(ctx, trx, tx);
      return { error: paymeError(PAYME_ERROR_CODES.impossible) };
    }
    const performed = await markPerformed(ctx, trx, tx);
    await ctx.onPerformed(trx, performed);
    return { result: { transaction: performed.transactionId, perform_time: performed.performTime, state: 2 } };
  }
  if (tx.state === 2) return { result: { transaction: tx.transactionId, perform_time: tx.performTime, state: 2 } };
  return { error: paymeError(PAYME_ERROR_CODES.impossible) };
}

/**
 * CancelTransaction on the locked row: state 1 → -1; state 2 → -2 when `canCancelPerformed` allows it, else -31007;
 * both store `reason` and cancel_time = now and call `onCancelled` in the same transaction; -1/-2 → the STORED
 * cancel_time and state; unknown id → -31003.
 * @see fixtures payme/idempotency-rules.json (CancelTransaction rules); payme/rpc/CancelTransaction.json.
 */
export async function cancelTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const paymeId = idParam(params, 'id');
  const reason = intParam(params, 'reason');
  const tx = await lockTransaction(ctx, trx, paymeId);
  if (tx === null) return { error: paymeError(PAYME_ERROR_CODES.transactionNotFound) };
  if (tx.state === 2 && !(await ctx.canCancelPerformed(trx, tx))) {
    return { error: paymeError(PAYME_ERROR_CODES.cannotCancel) };
  }
  const current = tx.state > 0 ? await markCancelled(ctx, trx, tx, tx.state === 1 ? -1 : -2, reason) : tx;
  if (current !== tx) await ctx.onCancelled(trx, current);
  return { result: { transaction: current.transactionId, cancel_time: current.cancelTime, state: current.state } };
}
