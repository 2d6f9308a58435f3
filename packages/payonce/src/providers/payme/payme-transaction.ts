import { intOf, intOrNull } from '../../outbox/sql-transaction.js';
import type { PaymeTransactionsTable } from './payme-tables.js';

/**
 * A Payme transaction state: 1 created, 2 performed, -1 cancelled before perform, -2 cancelled after perform.
 * @see fixtures payme/states-and-reasons.json "states" (PaycomUZ/paycom-integration-php-template Transaction.php).
 */
export type PaymeState = 1 | 2 | -1 | -2;

/**
 * One Payme transaction as stored in `payonce_payme_transactions`. Times are epoch milliseconds UTC (Payme's
 * 13-digit Timestamp); `performTime`/`cancelTime` are `null` until set (the protocol answers them as 0).
 * @see fixtures payme/states-and-reasons.json "data_types"; https://developer.help.paycom.uz/metody-merchant-api/tipy-dannykh/
 */
export interface PaymeTransaction {
  /** Payme's transaction id (`params.id`). */
  readonly paymeId: string;
  /** The merchant's own transaction id, answered as `transaction`. */
  readonly transactionId: string;
  /** The order (as `findOrder` named it) this transaction pays. */
  readonly orderId: string;
  /** The `account` object Payme sent with CreateTransaction. */
  readonly account: Readonly<Record<string, unknown>>;
  /** Amount in tiyin (1 sum = 100 tiyin). */
  readonly amountTiyin: number;
  /** The current state. */
  readonly state: PaymeState;
  /** Cancel reason (fixtures payme/states-and-reasons.json "reasons"), `null` while not cancelled. */
  readonly reason: number | null;
  /** Payme's creation `time` of the transaction (`params.time`), ms; the 12-hour timeout counts from it. */
  readonly paymeTime: number;
  /** When this merchant created the transaction, ms. */
  readonly createTime: number;
  /** When it was performed (state 2), ms; `null` before. */
  readonly performTime: number | null;
  /** When it was cancelled (state -1 or -2), ms; `null` before. */
  readonly cancelTime: number | null;
}

/** A stored row as a {@link PaymeTransaction}. */
export function toPaymeTransaction(row: PaymeTransactionsTable): PaymeTransaction {
  return Object.freeze({
    paymeId: row.payme_id,
    transactionId: row.transaction_id,
    orderId: row.order_id,
    account: Object.freeze(JSON.parse(row.account) as Record<string, unknown>),
    amountTiyin: intOf(row.amount_tiyin, 'amount_tiyin'),
    state: Number(row.state) as PaymeState,
    reason: row.reason === null ? null : Number(row.reason),
    paymeTime: intOf(row.payme_time, 'payme_time'),
    createTime: intOf(row.create_time, 'create_time'),
    performTime: intOrNull(row.perform_time, 'perform_time'),
    cancelTime: intOrNull(row.cancel_time, 'cancel_time'),
  });
}
