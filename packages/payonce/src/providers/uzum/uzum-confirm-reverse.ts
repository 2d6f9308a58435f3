import type { Transaction } from 'kysely';
import type { UzumContext } from './uzum-context.js';
import { UZUM_ERROR_CODES } from './uzum-errors.js';
import type { UzumOutcome } from './uzum-outcome.js';
import { transIdField } from './uzum-request.js';
import { lockUzumTransaction, markUzumConfirmed, markUzumReversed } from './uzum-rows.js';
import type { UzumTransaction } from './uzum-transaction.js';

const common = (ctx: UzumContext<unknown>, tx: UzumTransaction) => ({
  serviceId: ctx.serviceId,
  transId: tx.transId,
  status: tx.status,
});

/**
 * /confirm on the locked row: CREATED → CONFIRMED with confirmTime = now and the user's `onConfirmed` in the SAME
 * transaction (so it runs exactly once: a repeat finds CONFIRMED); CONFIRMED → the STORED confirmTime; REVERSED →
 * 10015; unknown transId → 10014.
 * @see fixtures uzum/protocol.json "endpoints./confirm", "silent_or_ambiguous" (a repeated confirm); uzum/examples/confirm.json.
 */
export async function uzumConfirm<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
): Promise<UzumOutcome> {
  const tx = await lockUzumTransaction(ctx, trx, transIdField(body));
  if (tx === null) return { errorCode: UZUM_ERROR_CODES.transactionNotFound };
  if (tx.status === 'REVERSED') return { errorCode: UZUM_ERROR_CODES.transactionCancelled };
  let current = tx;
  if (tx.status === 'CREATED') {
    current = await markUzumConfirmed(ctx, trx, tx);
    await ctx.onConfirmed(trx, current);
  }
  const answer = { ...common(ctx as UzumContext<unknown>, current), confirmTime: current.confirmTime };
  return { body: { ...answer, data: current.data, amount: current.amountTiyin } };
}

/**
 * /reverse on the locked row: CREATED or CONFIRMED → REVERSED with reverseTime = now and the user's `onReversed`
 * in the same transaction (the order may then be paid by another transaction); REVERSED → the STORED reverseTime;
 * unknown transId → 10014.
 * @see fixtures uzum/protocol.json "endpoints./reverse", "silent_or_ambiguous"; uzum/examples/reverse.json.
 */
export async function uzumReverse<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
): Promise<UzumOutcome> {
  const tx = await lockUzumTransaction(ctx, trx, transIdField(body));
  if (tx === null) return { errorCode: UZUM_ERROR_CODES.transactionNotFound };
  let current = tx;
  if (tx.status !== 'REVERSED') {
    current = await markUzumReversed(ctx, trx, tx);
    await ctx.onReversed(trx, current);
  }
  const answer = { ...common(ctx as UzumContext<unknown>, current), reverseTime: current.reverseTime };
  return { body: { ...answer, data: current.data, amount: current.amountTiyin } };
}

/**
 * /status: the transaction's CURRENT stored state (status, transTime, confirmTime and reverseTime, `null` while
 * unset, data, amount); unknown transId → 10014. Writes nothing.
 * @see fixtures uzum/protocol.json "endpoints./status"; uzum/examples/status.json.
 */
export async function uzumStatus<DB>(
  ctx: UzumContext<DB>,
  trx: Transaction<DB>,
  body: Readonly<Record<string, unknown>>,
): Promise<UzumOutcome> {
  const tx = await lockUzumTransaction(ctx, trx, transIdField(body));
  if (tx === null) return { errorCode: UZUM_ERROR_CODES.transactionNotFound };
  return {
    body: {
      ...common(ctx as UzumContext<unknown>, tx),
      transTime: tx.transTime,
      confirmTime: tx.confirmTime,
      reverseTime: tx.reverseTime,
      data: tx.data,
      amount: tx.amountTiyin,
    },
  };
}
