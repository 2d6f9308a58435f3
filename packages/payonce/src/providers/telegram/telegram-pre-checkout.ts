import type { Transaction } from 'kysely';
import { OrderNotPayable } from '../../payments/order-not-payable.js';
import type { Payments } from '../../payments/payments.js';
import type { PreCheckoutFacts } from './telegram-payment-facts.js';
import { TELEGRAM_PROVIDER } from './telegram-update.js';

/** The texts Telegram shows the buyer when a pre-checkout is refused (`error_message`). */
export interface TelegramRefusalTexts {
  /** The payload names no order we can take this payment for (unknown, paid, cancelled, another payment under way). */
  readonly notPayable: string;
  /** The query's amount or currency is not the order's. */
  readonly wrongAmount: string;
}

/** Default refusal texts (English). */
export const DEFAULT_REFUSAL_TEXTS: TelegramRefusalTexts = Object.freeze({
  notPayable: 'This order can no longer be paid.',
  wrongAmount: 'The price of this order has changed; please ask for a new invoice.',
});

/** The answer to one `pre_checkout_query`: the parameters of `answerPreCheckoutQuery`. */
export interface PreCheckoutAnswer {
  readonly pre_checkout_query_id: string;
  readonly ok: boolean;
  /** Present when `ok` is false (Telegram requires it then). */
  readonly error_message?: string;
}

/**
 * Decides a pre-checkout query from the order's state, in `trx`: the payload must name an order Telegram may pay
 * (`payments.lockPayableOrderIn`: locked, in the query's currency, `draft`/`awaiting_payment`, no other provider's
 * active attempt) whose amount is the query's `total_amount`. Then the order's attempt of provider `telegram` is
 * opened (payment id = the order id; a repeat query answers the same attempt), so no other provider can take the
 * order while the buyer pays. A paid order is refused: its payment is done. An order whose Telegram attempt ended
 * cancelled or failed is refused too (one Telegram attempt per order: its payment id is the order id). No network call.
 * @throws what `payments` throws (the database's errors).
 * @see https://core.telegram.org/bots/api#answerprecheckoutquery; docs/providers/telegram.md "Payments".
 */
export async function decidePreCheckout<DB>(
  payments: Payments<DB>,
  trx: Transaction<DB>,
  query: PreCheckoutFacts,
  texts: TelegramRefusalTexts,
): Promise<PreCheckoutAnswer> {
  const refuse = (error_message: string) => ({ pre_checkout_query_id: query.queryId, ok: false, error_message });
  if (query.orderId === null || query.currency === null) return refuse(texts.notPayable);
  const rule = { provider: TELEGRAM_PROVIDER, currency: query.currency };
  const order = await payments.lockPayableOrderIn(trx, query.orderId, rule);
  if (order === null) return refuse(texts.notPayable);
  if (order.amountMinor !== query.totalAmount) return refuse(texts.wrongAmount);
  try {
    await payments.openProviderAttempt(trx, order.id, { provider: TELEGRAM_PROVIDER, paymentId: order.id });
  } catch (error) {
    // The order's one Telegram attempt (payment id = order id) ended cancelled or failed: Telegram cannot pay it again.
    if (error instanceof OrderNotPayable) return refuse(texts.notPayable);
    throw error;
  }
  return { pre_checkout_query_id: query.queryId, ok: true };
}
