import { isStoredId } from '../../core/stored-id.js';
import type { TelegramUpdate } from './telegram-update.js';

type Obj = { readonly [key: string]: unknown };
const asObj = (value: unknown): Obj | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const amount = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
const currency = (value: unknown): string | null =>
  typeof value === 'string' && /^[A-Z]{3}$/.test(value) ? value : null;

/** A `pre_checkout_query` as the engine reads it. */
export interface PreCheckoutFacts {
  readonly queryId: string;
  /** `invoice_payload` when it can be an order id (1–64 printable ASCII), else `null` (no order of ours). */
  readonly orderId: string | null;
  readonly currency: string | null;
  readonly totalAmount: number | null;
}

/** A message's `successful_payment` as the engine reads it. */
export interface SuccessfulPaymentFacts {
  readonly chargeId: string;
  readonly providerChargeId: string | null;
  /** The payer (`message.from.id`, a private chat's `chat.id` otherwise): `refundStarPayment`'s `user_id`. */
  readonly userId: number | null;
  readonly orderId: string | null;
  readonly currency: string | null;
  readonly totalAmount: number | null;
  /** `message.date` (Unix seconds) as epoch ms, or `null`. */
  readonly paidAtMs: number | null;
}

/**
 * The facts of a `pre_checkout_query` update, or `null` for any other update (or one without a query id). Amount and
 * currency that are not an integer of smallest units / a three-letter code read as `null` (the query is refused).
 * @see https://core.telegram.org/bots/api#precheckoutquery
 */
export function preCheckoutOf(update: TelegramUpdate): PreCheckoutFacts | null {
  const query = asObj(update.pre_checkout_query);
  const queryId = text(query?.id);
  if (query === null || queryId === null) return null;
  const payload = query.invoice_payload;
  return {
    queryId,
    orderId: isStoredId(payload) ? payload : null,
    currency: currency(query.currency),
    totalAmount: amount(query.total_amount),
  };
}

/**
 * The facts of a message with `successful_payment`, or `null` for any other update (or one without a
 * `telegram_payment_charge_id`).
 * @see https://core.telegram.org/bots/api#successfulpayment, #message
 */
export function successfulPaymentOf(update: TelegramUpdate): SuccessfulPaymentFacts | null {
  const message = asObj(update.message);
  const paid = asObj(message?.successful_payment);
  const chargeId = text(paid?.telegram_payment_charge_id);
  if (message === null || paid === null || chargeId === null) return null;
  const payer = asObj(message.from)?.id ?? asObj(message.chat)?.id;
  const date = message.date;
  return {
    chargeId,
    providerChargeId: text(paid.provider_payment_charge_id),
    userId: typeof payer === 'number' && Number.isSafeInteger(payer) ? payer : null,
    orderId: isStoredId(paid.invoice_payload) ? (paid.invoice_payload as string) : null,
    currency: currency(paid.currency),
    totalAmount: amount(paid.total_amount),
    paidAtMs: typeof date === 'number' && Number.isSafeInteger(date) ? date * 1000 : null,
  };
}
