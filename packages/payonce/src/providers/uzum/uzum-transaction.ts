import { intOf, intOrNull } from '../../outbox/sql-transaction.js';
import type { UzumTransactionsTable } from './uzum-tables.js';

/**
 * A stored Uzum transaction status: CREATED by /create, CONFIRMED by /confirm (paid), REVERSED by /reverse.
 * (Uzum's FAILED is never stored by this engine: it answers failures as errors.)
 * @see fixtures uzum/protocol.json "transaction_statuses".
 */
export type UzumStatus = 'CREATED' | 'CONFIRMED' | 'REVERSED';

/**
 * One Uzum transaction as stored in `payonce_uzum_transactions`. Times are epoch milliseconds UTC.
 * @see fixtures uzum/protocol.json "endpoints" (transTime, confirmTime, reverseTime).
 */
export interface UzumTransaction {
  /** Uzum Bank's transaction id (`transId`). */
  readonly transId: string;
  /** The order (as `findOrder` named it) this transaction pays. */
  readonly orderId: string;
  /** The `params` object Uzum Bank sent with /create. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Amount in tiyin (1 sum = 100 tiyin). */
  readonly amountTiyin: number;
  /** The current status. */
  readonly status: UzumStatus;
  /** The `data` answered for this transaction: attribute name → `{ value }`. */
  readonly data: Readonly<Record<string, { readonly value: string }>>;
  /** When this merchant created it, ms (`transTime`). */
  readonly transTime: number;
  /** When it was confirmed, ms; `null` before. */
  readonly confirmTime: number | null;
  /** When it was reversed, ms; `null` before. */
  readonly reverseTime: number | null;
}

/** A stored row as an {@link UzumTransaction}. */
export function toUzumTransaction(row: UzumTransactionsTable): UzumTransaction {
  return Object.freeze({
    transId: row.trans_id,
    orderId: row.order_id,
    params: Object.freeze(JSON.parse(row.params) as Record<string, unknown>),
    amountTiyin: intOf(row.amount_tiyin, 'amount_tiyin'),
    status: row.status as UzumStatus,
    data: Object.freeze(JSON.parse(row.data) as Record<string, { value: string }>),
    transTime: intOf(row.trans_time, 'trans_time'),
    confirmTime: intOrNull(row.confirm_time, 'confirm_time'),
    reverseTime: intOrNull(row.reverse_time, 'reverse_time'),
  });
}
