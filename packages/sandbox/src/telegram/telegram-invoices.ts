import { badRequest } from './telegram-bot-error.js';

/** An invoice the bot sent (`sendInvoice`) or made a link of (`createInvoiceLink`). */
export interface SandboxInvoice {
  /** `msg:<message_id>` for a sent invoice, the link's slug for a link. */
  readonly ref: string;
  /** The chat it was sent to, or `null` for a link. */
  readonly chatId: number | null;
  readonly title: string;
  readonly description: string;
  readonly payload: string;
  readonly currency: string;
  /** The sum of the price lines, smallest units. */
  readonly totalAmount: number;
}

type Params = Readonly<Record<string, unknown>>;

const text = (params: Params, name: string, min: number, max: number): string => {
  const value = params[name];
  if (typeof value !== 'string') throw badRequest(`${name} is required`);
  const size = name === 'payload' ? Buffer.byteLength(value) : value.length;
  if (size < min || size > max)
    throw badRequest(`${name} must be ${min}-${max} ${name === 'payload' ? 'bytes' : 'characters'}`);
  return value;
};

/**
 * Checks the invoice parameters of `sendInvoice`/`createInvoiceLink` as Telegram documents them (title 1–32
 * characters, description 1–255, payload 1–128 bytes, a three-letter currency or `XTR`, prices of integer amounts;
 * for Stars exactly one price and an empty or absent provider token) and returns the invoice. Refusals are the
 * sandbox's own 400 texts.
 * @throws {TelegramBotError} a parameter Telegram would refuse.
 * @see https://core.telegram.org/bots/api#sendinvoice; fixtures/providers/telegram/protocol.json "invoice".
 */
export function invoiceOf(params: Params, ref: string, chatId: number | null): SandboxInvoice {
  const title = text(params, 'title', 1, 32);
  const description = text(params, 'description', 1, 255);
  const payload = text(params, 'payload', 1, 128);
  const currency = params.currency;
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw badRequest('currency must be a three-letter code');
  const prices = params.prices;
  if (!Array.isArray(prices) || prices.length === 0) throw badRequest('prices must be a non-empty list');
  const amounts = prices.map((p) => (p as { amount?: unknown })?.amount);
  if (!amounts.every((a) => typeof a === 'number' && Number.isSafeInteger(a))) {
    throw badRequest('each price amount must be an integer of the smallest units');
  }
  if (currency === 'XTR') {
    if (prices.length !== 1) throw badRequest('prices must contain exactly one item for payments in Telegram Stars');
    if (params.provider_token !== undefined && params.provider_token !== '') {
      throw badRequest('provider_token must be empty for payments in Telegram Stars');
    }
  } else if (typeof params.provider_token !== 'string' || params.provider_token === '') {
    throw badRequest(`provider_token is required for payments in ${currency}`);
  }
  const totalAmount = (amounts as number[]).reduce((sum, a) => sum + a, 0);
  if (totalAmount <= 0) throw badRequest('the total amount must be positive');
  return Object.freeze({ ref, chatId, title, description, payload, currency, totalAmount });
}
