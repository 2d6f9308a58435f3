import type { RedactionOptions } from '../../webhooks/journal/redact.js';

/**
 * Paths redacted from Telegram updates on top of `DEFAULT_REDACT_PATHS` (which already cover `first_name`,
 * `last_name`, `phone_number`, `email`, `name` and `address` at any depth): `username` (of users and chats), a
 * payment's whole `order_info` (name, phone, e-mail, shipping address), a `shipping_query`'s `shipping_address`
 * and a shared contact's `vcard`. Message text stays, with e-mail addresses, phone numbers and card numbers inside
 * it scrubbed by `scrubValues`. Ids (`update_id`, user and chat ids, `message_id`, charge ids) stay readable.
 * @see https://core.telegram.org/bots/api#user, #orderinfo, #shippingquery, #contact; docs/providers/telegram.md
 * "Journal redaction".
 */
export const TELEGRAM_REDACT_PATHS: readonly string[] = Object.freeze([
  '**.username',
  '**.order_info',
  '**.shipping_address',
  '**.vcard',
]);

/**
 * The intake's `redaction` for a Telegram endpoint: the default paths plus {@link TELEGRAM_REDACT_PATHS}, and
 * `extraPaths` of your own.
 * @example createWebhookIntake({ guard, journal, redaction: telegramRedaction(), endpoints: { telegram: … } })
 */
export function telegramRedaction(extraPaths: readonly string[] = []): RedactionOptions {
  return { extraPaths: [...TELEGRAM_REDACT_PATHS, ...extraPaths] };
}
