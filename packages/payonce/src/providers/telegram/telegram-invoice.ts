import { InvalidOption } from '../../core/errors.js';
import type { Order } from '../../payments/order.js';

/** The Telegram Stars currency code. @see https://core.telegram.org/bots/api#sendinvoice ("Pass “XTR” for payments in Telegram Stars") */
export const TELEGRAM_STARS = 'XTR';

/** What the seller says about an invoice (shown to the buyer). */
export interface TelegramInvoiceText {
  /** Product name, 1–32 characters. */
  readonly title: string;
  /** Product description, 1–255 characters. */
  readonly description: string;
  /** The one price line's label. @default title */
  readonly label?: string;
  /**
   * The payment provider token from @BotFather, for fiat currencies. Ignored for Stars (`XTR`), where Telegram wants
   * an empty string.
   */
  readonly providerToken?: string;
}

/**
 * The common parameters of `sendInvoice` and `createInvoiceLink` (title, description, payload, provider_token,
 * currency, prices), without `chat_id`.
 */
export interface TelegramInvoiceParams {
  readonly title: string;
  readonly description: string;
  /** The order id: Telegram echoes it as `invoice_payload`. Never a secret (the buyer's client sees it). */
  readonly payload: string;
  readonly provider_token: string;
  readonly currency: string;
  /** One line: the order's amount in the currency's smallest units (Stars: whole stars). */
  readonly prices: readonly { readonly label: string; readonly amount: number }[];
}

const chars = (value: unknown, option: string, max: number): string => {
  if (typeof value !== 'string' || value.length < 1 || value.length > max) {
    throw new InvalidOption(option, `must be 1-${max} characters (Bot API sendInvoice)`);
  }
  return value;
};

/**
 * The invoice of an order, pure: `payload` is the order id (1–64 characters, within Telegram's 1–128 bytes), the
 * currency the order's (`XTR` for Stars, else an ISO 4217 code), and one price line of the order's amount: payonce
 * keeps amounts in minor units, which are Telegram's "smallest units of the currency" (cents; whole stars for XTR).
 * For Stars the provider token is `''` and the price list has exactly one item, as Telegram requires.
 * @throws {InvalidOption} a title over 32 or a description over 255 characters (or empty); a fiat order without
 *   `providerToken`.
 * @see https://core.telegram.org/bots/api#sendinvoice, #createinvoicelink, #labeledprice;
 * fixtures/providers/telegram/protocol.json "invoice".
 * @example telegramInvoice(order, { title: 'Pro plan', description: '30 days of Pro' })
 */
export function telegramInvoice(order: Order, text: TelegramInvoiceText): TelegramInvoiceParams {
  const title = chars(text?.title, 'title', 32);
  const description = chars(text?.description, 'description', 255);
  const stars = order.currency === TELEGRAM_STARS;
  if (!stars && (typeof text.providerToken !== 'string' || text.providerToken === '')) {
    throw new InvalidOption('providerToken', `a ${order.currency} invoice needs the payment provider token`);
  }
  return Object.freeze({
    title,
    description,
    payload: order.id,
    provider_token: stars ? '' : (text.providerToken as string),
    currency: order.currency,
    prices: Object.freeze([Object.freeze({ label: text.label ?? title, amount: order.amountMinor })]),
  });
}
