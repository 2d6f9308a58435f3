import type { Kysely, Transaction } from 'kysely';
import { insertUnlessDuplicate } from '../../outbox/insert-unless-duplicate.js';
import { intOf, intOrNull } from '../../outbox/sql-transaction.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import type { SuccessfulPaymentFacts } from './telegram-payment-facts.js';
import { TELEGRAM_CHARGES_TABLE, type TelegramDatabase } from './telegram-tables.js';

/** What the engine decided about a charge: `payments`' decision, or `declined` (no order id in the payload). */
export type TelegramChargeDecision = 'applied' | 'unchanged' | 'rejected' | 'parked' | 'declined';

/**
 * One `successful_payment` as the engine recorded it (`payonce_telegram_charges`): the payer of record, what the
 * payment named and what the engine first decided. Amounts in the currency's smallest units (whole stars for `XTR`);
 * times epoch ms UTC.
 */
export interface TelegramCharge {
  readonly chargeId: string;
  /** The payer (`refundStarPayment`'s `user_id`), or `null` when the message named none. */
  readonly userId: number | null;
  /** The `invoice_payload` when it can be an order id, else `null`. */
  readonly orderRef: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** The engine's decision at the first delivery: `applied`, `unchanged`, `rejected`, `parked` or `declined`. */
  readonly decision: TelegramChargeDecision;
  readonly receivedAtMs: number;
  /** When `refundStarPayment` confirmed a refund asked by `requestStrayStarRefund`, else `null`. */
  readonly strayRefundedAtMs: number | null;
}

/** The engine's table inside `trx` (or on the store), qualified with the store's schema. */
export function chargesDb<DB>(store: SqlStore<DB>, trx?: Transaction<DB>): Kysely<TelegramDatabase> {
  return tablesIn<TelegramDatabase>(store, trx ?? store.db);
}

/** Records a charge in `trx` once (a repeat of the charge keeps the first row). */
export async function recordCharge<DB>(
  store: SqlStore<DB>,
  trx: Transaction<DB>,
  paid: SuccessfulPaymentFacts,
  decision: TelegramChargeDecision,
  nowMs: number,
): Promise<void> {
  const row = {
    charge_id: paid.chargeId,
    user_id: paid.userId,
    order_ref: paid.orderId,
    amount_minor: paid.totalAmount,
    currency: paid.currency,
    decision,
    received_at: nowMs,
    stray_refunded_at: null,
  };
  await insertUnlessDuplicate(store.dialect, chargesDb(store, trx).insertInto(TELEGRAM_CHARGES_TABLE).values(row));
}

/** The recorded charge `chargeId`, or `null` (never received, or received before migration `0014`). */
export async function findCharge<DB>(
  store: SqlStore<DB>,
  chargeId: string,
  trx?: Transaction<DB>,
): Promise<TelegramCharge | null> {
  const row = await chargesDb(store, trx)
    .selectFrom(TELEGRAM_CHARGES_TABLE)
    .selectAll()
    .where('charge_id', '=', chargeId)
    .executeTakeFirst();
  if (row === undefined) return null;
  return Object.freeze({
    chargeId: row.charge_id,
    userId: intOrNull(row.user_id, 'payonce_telegram_charges.user_id'),
    orderRef: row.order_ref,
    amountMinor: intOrNull(row.amount_minor, 'payonce_telegram_charges.amount_minor'),
    currency: row.currency,
    decision: row.decision as TelegramCharge['decision'],
    receivedAtMs: intOf(row.received_at, 'payonce_telegram_charges.received_at'),
    strayRefundedAtMs: intOrNull(row.stray_refunded_at, 'payonce_telegram_charges.stray_refunded_at'),
  });
}

/** Marks the stray refund of `chargeId` confirmed at `nowMs` (in the effect ledger's transaction). */
export async function markStrayRefunded<DB>(
  store: SqlStore<DB>,
  trx: Transaction<DB>,
  chargeId: string,
  nowMs: number,
): Promise<void> {
  await chargesDb(store, trx)
    .updateTable(TELEGRAM_CHARGES_TABLE)
    .set({ stray_refunded_at: nowMs })
    .where('charge_id', '=', chargeId)
    .execute();
}
