import type { Transaction } from 'kysely';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import type { PaymeContext } from './payme-context.js';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import { checkResult, type PaymeOutcome, statementEntry } from './payme-outcome.js';
import { idParam, intParam, objectParam, PaymeParamError } from './payme-request.js';
import { lockTransaction, storeFiscalData, transactionsBetween } from './payme-rows.js';
import type { PaymeDatabase } from './payme-tables.js';

/** CheckTransaction: the transaction's current state; unknown id → -31003. @see fixtures payme/rpc/CheckTransaction.json */
export async function checkTransaction<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const tx = await lockTransaction(ctx, trx, idParam(params, 'id'));
  if (tx === null) return { error: paymeError(PAYME_ERROR_CODES.transactionNotFound) };
  return { result: checkResult(tx) };
}

/**
 * GetStatement: every transaction whose Payme `time` lies in [from, to], oldest first, as their current state;
 * `from` after `to` → -32600. @see fixtures payme/rpc/GetStatement.json.
 */
export async function getStatement<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const from = intParam(params, 'from');
  const to = intParam(params, 'to');
  if (from > to) throw new PaymeParamError('from');
  const transactions = await transactionsBetween(tablesIn<PaymeDatabase>(ctx.store, trx), from, to);
  return { result: { transactions: transactions.map(statementEntry) } };
}

/**
 * SetFiscalData: stores `fiscal_data` of the `PERFORM` or `CANCEL` receipt of transaction `id` and answers
 * `{ success: true }`; unknown id → -31003; another `type` → -32600.
 * @see https://developer.help.paycom.uz/metody-merchant-api/setfiscaldata (params id, type, fiscal_data).
 */
export async function setFiscalData<DB>(
  ctx: PaymeContext<DB>,
  trx: Transaction<DB>,
  params: Readonly<Record<string, unknown>>,
): Promise<PaymeOutcome> {
  const paymeId = idParam(params, 'id');
  const type = params.type;
  if (type !== 'PERFORM' && type !== 'CANCEL') throw new PaymeParamError('type');
  const stored = await storeFiscalData(ctx, trx, paymeId, type, objectParam(params, 'fiscal_data'));
  if (!stored) return { error: paymeError(PAYME_ERROR_CODES.transactionNotFound) };
  return { result: { success: true } };
}
