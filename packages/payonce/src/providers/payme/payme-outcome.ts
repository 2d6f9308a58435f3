import type { PaymeRpcError } from './payme-errors.js';
import type { PaymeTransaction } from './payme-transaction.js';

/** A method's answer: the JSON-RPC `result`, or an `error`. */
export type PaymeOutcome =
  | { readonly result: Readonly<Record<string, unknown>>; readonly error?: undefined }
  | { readonly error: PaymeRpcError; readonly result?: undefined };

/** Thrown inside a call's transaction when a concurrent call's row made the insert fail: the call runs again. */
export class PaymeRaceLost extends Error {
  constructor() {
    super('a concurrent call wrote the same Payme transaction or order first');
  }
}

/** Whether `tx` is still in state 1 past the 12-hour timeout, counted from Payme's creation `time`. */
export function isExpired(tx: PaymeTransaction, nowMs: number, timeoutMs: number): boolean {
  return tx.state === 1 && nowMs - tx.paymeTime > timeoutMs;
}

/**
 * The CheckTransaction view of a transaction, from its CURRENT stored state (0 for times not set).
 * @see fixtures payme/rpc/CheckTransaction.json "response_shape_from_official_template".
 */
export function checkResult(tx: PaymeTransaction): Readonly<Record<string, unknown>> {
  return {
    create_time: tx.createTime,
    perform_time: tx.performTime ?? 0,
    cancel_time: tx.cancelTime ?? 0,
    transaction: tx.transactionId,
    state: tx.state,
    reason: tx.reason,
  };
}

/**
 * The GetStatement view of a transaction. @see fixtures payme/rpc/GetStatement.json (fields of the transaction object).
 */
export function statementEntry(tx: PaymeTransaction): Readonly<Record<string, unknown>> {
  return {
    id: tx.paymeId,
    time: tx.paymeTime,
    amount: tx.amountTiyin,
    account: tx.account,
    create_time: tx.createTime,
    perform_time: tx.performTime ?? 0,
    cancel_time: tx.cancelTime ?? 0,
    transaction: tx.transactionId,
    state: tx.state,
    reason: tx.reason,
    receivers: null,
  };
}
