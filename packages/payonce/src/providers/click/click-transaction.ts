import type { Selectable } from 'kysely';
import { intOf, intOrNull } from '../../outbox/sql-transaction.js';
import type { ClickTransactionsTable } from './click-tables.js';

/**
 * A Click transaction's state: `prepared` after a successful Prepare, `completed` after a successful Complete (the
 * order is paid), `cancelled` after a Complete (or Prepare) carrying Click's `error < 0`, or when a newer Prepare
 * for the same order replaced it before it was completed.
 * @see https://docs.click.uz/en/click-api-error/ ("When receiving a negative error code, the supplier should cancel
 *   the payment … and return -9").
 */
export type ClickState = 'prepared' | 'completed' | 'cancelled';

/** The stored number of each {@link ClickState} (migration `0012-click`). */
export const CLICK_STATE_CODES: Readonly<Record<ClickState, number>> = Object.freeze({
  prepared: 0,
  completed: 1,
  cancelled: -1,
});

/**
 * One Click transaction as stored in `payonce_click_transactions`. Amount in tiyin (1 sum = 100 tiyin); times are
 * epoch milliseconds UTC of this merchant's clock, `null` until set.
 */
export interface ClickTransaction {
  /** The merchant's id of the payment, answered as `merchant_prepare_id` and as `merchant_confirm_id`. */
  readonly merchantPrepareId: number;
  /** Click's id of this attempt to pay (`click_trans_id`). */
  readonly clickTransId: number;
  /** Click's payment id shown to the customer (`click_paydoc_id`), `null` if Click sent none. */
  readonly clickPaydocId: number | null;
  /** The Click service the payment was made to. */
  readonly serviceId: number;
  /** The order (`merchant_trans_id`); one live (prepared or completed) transaction per order. */
  readonly merchantTransId: string;
  /** Amount in tiyin. */
  readonly amountTiyin: number;
  /** The current state. */
  readonly state: ClickState;
  /** The negative `error` Click sent when it cancelled the payment; `null` otherwise. */
  readonly clickError: number | null;
  /** When the Prepare was accepted, ms. */
  readonly prepareTime: number;
  /** When the Complete was accepted, ms; `null` before. */
  readonly completeTime: number | null;
  /** When it was cancelled, ms; `null` unless cancelled. */
  readonly cancelTime: number | null;
}

const STATE_OF: Readonly<Record<number, ClickState>> = Object.freeze({
  0: 'prepared',
  1: 'completed',
  [-1]: 'cancelled',
});

/** A stored row as a {@link ClickTransaction}. */
export function toClickTransaction(row: Selectable<ClickTransactionsTable>): ClickTransaction {
  const state = STATE_OF[Number(row.state)];
  if (state === undefined) throw new Error(`payonce_click_transactions.state is not 0, 1 or -1: ${String(row.state)}`);
  return Object.freeze({
    merchantPrepareId: intOf(row.merchant_prepare_id, 'merchant_prepare_id'),
    clickTransId: intOf(row.click_trans_id, 'click_trans_id'),
    clickPaydocId: intOrNull(row.click_paydoc_id, 'click_paydoc_id'),
    serviceId: intOf(row.service_id, 'service_id'),
    merchantTransId: row.merchant_trans_id,
    amountTiyin: intOf(row.amount_tiyin, 'amount_tiyin'),
    state,
    clickError: row.click_error === null ? null : Number(row.click_error),
    prepareTime: intOf(row.prepare_time, 'prepare_time'),
    completeTime: intOrNull(row.complete_time, 'complete_time'),
    cancelTime: intOrNull(row.cancel_time, 'cancel_time'),
  });
}
