import type { Selectable } from 'kysely';
import type { ClickTransactionsTable } from 'payonce/internal/providers/click/click-tables.js';
import { type ClickState, toClickTransaction } from 'payonce/internal/providers/click/click-transaction.js';
import type { PaymeTransactionsTable } from 'payonce/internal/providers/payme/payme-tables.js';
import { type PaymeState, toPaymeTransaction } from 'payonce/internal/providers/payme/payme-transaction.js';
import type { UzumTransactionsTable } from 'payonce/internal/providers/uzum/uzum-tables.js';
import { toUzumTransaction, type UzumStatus } from 'payonce/internal/providers/uzum/uzum-transaction.js';
import type { Redactor } from 'payonce/internal/webhooks/journal/redact.js';

/**
 * A Payme transaction as the console shows it (`payonce_payme_transactions`, read by the engine's own row reader):
 * Payme's id, the state (1 created, 2 performed, -1 cancelled before perform, -2 cancelled after perform), the
 * cancel reason, the amount in tiyin and the times in epoch ms UTC. Never the `account` object nor fiscal data.
 * @see fixtures payme/states-and-reasons.json "states", "reasons".
 */
export interface PaymeTransactionItem {
  readonly provider: 'payme';
  /** Payme's transaction id (`params.id`). */
  readonly id: string;
  /** The merchant's transaction id, answered to Payme as `transaction`. */
  readonly transaction: string;
  /** The service order the transaction pays. */
  readonly orderId: string;
  readonly state: PaymeState;
  /** Cancel reason code, `null` while not cancelled. */
  readonly reason: number | null;
  readonly amountTiyin: number;
  /** Payme's creation `time` (the 12-hour timeout and GetStatement's range count from it). */
  readonly timeMs: number;
  readonly createTimeMs: number;
  readonly performTimeMs: number | null;
  readonly cancelTimeMs: number | null;
}

/**
 * A Click transaction as the console shows it (`payonce_click_transactions`): Click's `click_trans_id`, the
 * merchant's `merchant_prepare_id`, the status, Click's negative `error` when it cancelled, amount in tiyin and
 * times in epoch ms UTC. @see fixtures click/protocol.json (Prepare and Complete fields).
 */
export interface ClickTransactionItem {
  readonly provider: 'click';
  readonly clickTransId: number;
  readonly merchantPrepareId: number;
  /** Click's payment id shown to the customer, `null` if Click sent none. */
  readonly clickPaydocId: number | null;
  /** The service order (`merchant_trans_id`). */
  readonly orderId: string;
  readonly status: ClickState;
  readonly clickError: number | null;
  readonly amountTiyin: number;
  readonly prepareTimeMs: number;
  readonly completeTimeMs: number | null;
  readonly cancelTimeMs: number | null;
}

/**
 * An Uzum Bank transaction as the console shows it (`payonce_uzum_transactions`): `transId`, status, amount in
 * tiyin and the trans/confirm/reverse times in epoch ms UTC. Never its `params` nor `data` (they may carry a
 * customer's phone number). @see fixtures uzum/protocol.json "transaction_statuses".
 */
export interface UzumTransactionItem {
  readonly provider: 'uzum';
  readonly transId: string;
  /** The service order the transaction pays. */
  readonly orderId: string;
  readonly status: UzumStatus;
  readonly amountTiyin: number;
  readonly transTimeMs: number;
  readonly confirmTimeMs: number | null;
  readonly reverseTimeMs: number | null;
}

/** One provider transaction of any of the three engines, told apart by `provider`. */
export type ProviderTransactionItem = PaymeTransactionItem | ClickTransactionItem | UzumTransactionItem;

/** A Payme row as the console shows it; identifiers scrubbed (a card number or phone inside an id is hidden). */
export function paymeItem(redactor: Redactor, row: PaymeTransactionsTable): PaymeTransactionItem {
  const tx = toPaymeTransaction(row);
  return {
    provider: 'payme',
    id: redactor.scrubText(tx.paymeId),
    transaction: tx.transactionId,
    orderId: redactor.scrubText(tx.orderId),
    state: tx.state,
    reason: tx.reason,
    amountTiyin: tx.amountTiyin,
    timeMs: tx.paymeTime,
    createTimeMs: tx.createTime,
    performTimeMs: tx.performTime,
    cancelTimeMs: tx.cancelTime,
  };
}

/** A Click row as the console shows it. */
export function clickItem(redactor: Redactor, row: Selectable<ClickTransactionsTable>): ClickTransactionItem {
  const tx = toClickTransaction(row);
  return {
    provider: 'click',
    clickTransId: tx.clickTransId,
    merchantPrepareId: tx.merchantPrepareId,
    clickPaydocId: tx.clickPaydocId,
    orderId: redactor.scrubText(tx.merchantTransId),
    status: tx.state,
    clickError: tx.clickError,
    amountTiyin: tx.amountTiyin,
    prepareTimeMs: tx.prepareTime,
    completeTimeMs: tx.completeTime,
    cancelTimeMs: tx.cancelTime,
  };
}

/** An Uzum row as the console shows it. */
export function uzumItem(redactor: Redactor, row: UzumTransactionsTable): UzumTransactionItem {
  const tx = toUzumTransaction(row);
  return {
    provider: 'uzum',
    transId: redactor.scrubText(tx.transId),
    orderId: redactor.scrubText(tx.orderId),
    status: tx.status,
    amountTiyin: tx.amountTiyin,
    transTimeMs: tx.transTime,
    confirmTimeMs: tx.confirmTime,
    reverseTimeMs: tx.reverseTime,
  };
}
