import type { Transaction } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { isStoredId } from '../../core/stored-id.js';
import { canonicalJson } from '../../http/canonical-json.js';
import type { PaymeContext } from './payme-context.js';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import { isExpired, type PaymeOutcome, PaymeRaceLost } from './payme-outcome.js';
import { idParam, intParam, objectParam } from './payme-request.js';
import { insertTransaction, liveTransactionOf, lockTransaction, markCancelled } from './payme-rows.js';
import type { PaymeTransaction } from './payme-transaction.js';

/** Reason 4: cancelled by timeout (fixtures payme/states-and-reasons.json "reasons"). */
export const REASON_TIMEOUT = 4;

/**
 * Cancels a state-1 transaction whose 12 hours passed (state -1, reason 4) and calls the user's `onCancelled`, both
 * in `trx`. @see fixtures payme/states-and-reasons.json "reasons" (4: timeout).
 */
export async function cancelExpired<DB>(ctx: PaymeContext<DB>, trx: Transaction<DB>, tx: PaymeTransaction) {
  await ctx.onCancelled(trx, await markCancelled(ctx, trx, tx, -1, REASON_TIMEOUT));
}

const createdResult = (tx: PaymeTransaction): PaymeOutcome => ({
  result: { create_time: tx.createTime, transaction: tx.transactionId, state: tx.state, receivers: null },
});

/**
 * The order checks of CheckPerformTransaction and CreateTransaction: unknown account → -31050 (data: the account
 * field), amount other than the order's → -31001. Answers the order when both pass.
 */
async function payableOrder<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  account: Record<string, unknown>,
  amount: number,
) {
  const order = await ctx.findOrder(account, trx);
  if (
    order !== null &&
    (!isStoredId(order?.orderId) || !Number.isSafeInteger(order.amountTiyin) || order.amountTiyin <= 0)
  ) {
    throw new InvalidOption(
      'findOrder',
      'must answer null or { orderId: 1-64 printable ASCII, amountTiyin: a positive integer }',
    );
  }
  if (order === null) return { error: paymeError(PAYME_ERROR_CODES.account, ctx.accountField) } as const;
  if (order.amountTiyin !== amount) return { error: paymeError(PAYME_ERROR_CODES.wrongAmount) } as const;
  return { order } as const;
}

/**
 * CheckPerformTransaction: `{ allow: true }` when the account names a payable order of this amount and the order has
 * no live transaction; else -31050 / -31001 / -31008 (an active or completed transaction exists). A `findOrder`
 * answer that is neither `null` nor a valid order throws {@link InvalidOption} (answered -32400, given to `onError`).
 * @see fixtures payme/rpc/CheckPerformTransaction.json; payme/idempotency-rules.json (CheckPerformTransaction).
 */
export async function checkPerform<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const amount = intParam(params, 'amount');
  const found = await payableOrder(ctx, trx, objectParam(params, 'account'), amount);
  if (found.error) return found;
  const live = await liveTransactionOf(ctx, trx, found.order.orderId);
  if (live !== null && !isExpired(live, ctx.clock.now(), ctx.timeoutMs)) {
    return { error: paymeError(PAYME_ERROR_CODES.impossible) };
  }
  return { result: { allow: true } };
}

/** Whether two `account` objects are the same JSON (members in any order). */
function sameAccount(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return canonicalJson(JSON.stringify(a)) === canonicalJson(JSON.stringify(b));
}

/**
 * CreateTransaction, answered from the transaction's CURRENT state:
 * - a known id with another `amount` → -31001, with another `account` → -31050 (not a repeat: nothing changes);
 * - a known id in state 1 → its STORED create_time (no new one); past the timeout it is cancelled first (state -1,
 *   reason 4) and answered -31008; in any other state → -31008;
 * - a new id → the order checks (-31050, -31001); an order with another live transaction → -31050 (one whose
 *   12 hours passed is cancelled by timeout first); else the row is inserted in state 1. A unique index refusing the
 *   insert, or finding this very id as the order's live transaction (both written by a concurrent call since the
 *   look-up), throws {@link PaymeRaceLost}: the whole call runs again and finds that row. A new row is handed to
 *   `onCreated` in the same transaction; every timeout cancel to `onCancelled`.
 * @see fixtures payme/idempotency-rules.json (CreateTransaction rules); payme/rpc/CreateTransaction.json.
 */
export async function createTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const paymeId = idParam(params, 'id');
  const paymeTime = intParam(params, 'time');
  const amount = intParam(params, 'amount');
  const account = objectParam(params, 'account');
  const now = ctx.clock.now();
  const existing = await lockTransaction(ctx, trx, paymeId);
  if (existing !== null) {
    // A call naming another amount or account is no repeat of this transaction: refused, the row untouched.
    if (amount !== existing.amountTiyin) return { error: paymeError(PAYME_ERROR_CODES.wrongAmount) };
    if (!sameAccount(account, existing.account))
      return { error: paymeError(PAYME_ERROR_CODES.account, ctx.accountField) };
    if (existing.state !== 1) return { error: paymeError(PAYME_ERROR_CODES.impossible) };
    if (!isExpired(existing, now, ctx.timeoutMs)) return createdResult(existing);
    await cancelExpired(ctx, trx, existing);
    return { error: paymeError(PAYME_ERROR_CODES.impossible) };
  }
  const found = await payableOrder(ctx, trx, account, amount);
  if (found.error) return found;
  const { orderId } = found.order;
  const live = await liveTransactionOf(ctx, trx, orderId);
  // The same id committed by a concurrent call since this call looked it up: run again and answer from that row.
  if (live?.paymeId === paymeId) throw new PaymeRaceLost();
  if (live !== null) {
    if (!isExpired(live, now, ctx.timeoutMs)) return { error: paymeError(PAYME_ERROR_CODES.account, ctx.accountField) };
    await cancelExpired(ctx, trx, live);
  }
  const created = await insertTransaction(ctx, trx, { paymeId, orderId, account, amountTiyin: amount, paymeTime });
  if (created === null) throw new PaymeRaceLost();
  await ctx.onCreated(trx, created);
  return createdResult(created);
}
