import { type JsonObject, PayloadReader } from '../../webhooks/providers/payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from '../../webhooks/providers/provider-event.js';
import { checkBotId } from './telegram-bot-id.js';
import { TELEGRAM_PROVIDER, telegramUpdateKind } from './telegram-update.js';

/** Options of {@link telegramProfile}. */
export interface TelegramProfileOptions {
  /**
   * The bot's id (the decimal digits before `:` in its token, see `botIdOfToken`): part of every receipt key, since
   * `update_id` is unique per bot only. The token itself is never given to the profile.
   */
  readonly botId: string;
}

/** The payment facts of a `pre_checkout_query` or a message's `successful_payment`, or `null` for other updates. */
function paymentOf(read: PayloadReader, kind: string, body: JsonObject) {
  if (kind === 'pre_checkout_query') {
    const query = read.object(body.pre_checkout_query, 'pre_checkout_query');
    return { object: query, path: 'pre_checkout_query', objectId: read.string(query.id, 'pre_checkout_query.id') };
  }
  if (kind !== 'message') return null;
  const message = read.object(body.message, 'message');
  if (message.successful_payment === undefined) return null;
  const paid = read.object(message.successful_payment, 'message.successful_payment');
  const path = 'message.successful_payment';
  return {
    object: paid,
    path,
    objectId: read.string(paid.telegram_payment_charge_id, `${path}.telegram_payment_charge_id`),
  };
}

/**
 * Telegram Bot API updates (`{ update_id, <kind>: {…} }`) as delivered to a webhook. Every update with an
 * integer `update_id` is read, whatever its kind, so an authentic update of a kind the handler ignores is still
 * acknowledged once (Telegram repeats any non-2xx). The receipt key is `telegram` + `<botId>:<update_id>`
 * (`telegramUpdateKey`); `eventId` is the `update_id`, `eventType` the kind (`message`, `callback_query`, …).
 * For a `pre_checkout_query` and a message with `successful_payment`, `amountMinor` is `total_amount` (already in
 * the currency's smallest units), `currency` its code (`XTR` for Telegram Stars), `merchantReference` the bot's
 * `invoice_payload`, and `objectId`/`paymentId` the query id or `telegram_payment_charge_id`.
 * @throws {InvalidOption} `botId` is not a decimal bot id (at construction).
 * @throws {MalformedWebhookPayload} the body is not a JSON object, has no integer `update_id`, or a payment update
 * lacks its id, an integer `total_amount` or a three-letter `currency`.
 * @see https://core.telegram.org/bots/api#update, #precheckoutquery, #successfulpayment;
 * fixtures/providers/telegram/protocol.json.
 * @example telegramProfile({ botId: botIdOfToken(process.env.BOT_TOKEN!) })
 */
export function telegramProfile(options: TelegramProfileOptions): ProviderProfile {
  const botId = checkBotId(options?.botId);
  const read = new PayloadReader(TELEGRAM_PROVIDER);

  function extract({ rawBody }: ExtractInput): ProviderEvent {
    const body = read.json(rawBody);
    const updateId = read.integer(body.update_id, 'update_id');
    const kind = telegramUpdateKind(body);
    const payment = paymentOf(read, kind, body);
    const amountMinor = payment ? read.integer(payment.object.total_amount, `${payment.path}.total_amount`) : null;
    return {
      provider: read.provider,
      eventId: String(updateId),
      eventType: kind,
      objectId: payment?.objectId ?? null,
      paymentId: payment?.path === 'pre_checkout_query' ? null : (payment?.objectId ?? null),
      amountMinor,
      currency: payment ? read.currency(payment.object.currency, `${payment.path}.currency`) : null,
      merchantReference: payment
        ? read.optionalString(payment.object.invoice_payload, `${payment.path}.invoice_payload`)
        : null,
      occurredAtMs: null,
      key: read.key(`${botId}:${updateId}`, 'update_id'),
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'minor', extract };
}
