import type { WebhookEndpointBase } from '../../webhooks/intake-options.js';
import { telegramAcknowledgement } from './telegram-acknowledgement.js';
import { telegramProfile } from './telegram-profile.js';
import { type TelegramSecretTokenOptions, telegramSecretTokenScheme } from './telegram-secret-token-scheme.js';

/** Options of {@link telegramWebhook}. */
export interface TelegramWebhookOptions extends TelegramSecretTokenOptions {
  /** The bot's id (digits before `:` in its token; `botIdOfToken`). Never pass the token itself. */
  readonly botId: string;
}

/**
 * Everything of a Telegram webhook endpoint but its handler and commit mode, to spread into the intake's
 * `endpoints`: the profile (`telegramProfile`, receipt key bot id + `update_id`), the secret-token check
 * (`telegramSecretTokenScheme`), the answer (`telegramAcknowledgement`) and `fingerprint: 'none'` (the key is
 * unique per update; Telegram does not promise byte-identical redeliveries, so bytes are not compared).
 * With `transaction: true` the receipt and the handler's writes commit together and the 200 is sent only after
 * that commit; a throw rolls both back and answers 500, so Telegram delivers the update again.
 * @throws {InvalidOption} a bad `botId` or secret token.
 * @see docs/providers/telegram.md "Webhook".
 * @example
 * createWebhookIntake({ guard, journal, redaction: telegramRedaction(), endpoints: {
 *   telegram: { ...telegramWebhook({ botId, secretTokens: secret }), transaction: true, handler: (event, { tx }) => apply(tx, event) },
 * } });
 */
export function telegramWebhook(options: TelegramWebhookOptions): WebhookEndpointBase {
  return {
    profile: telegramProfile({ botId: options.botId }),
    scheme: telegramSecretTokenScheme(options),
    acknowledgement: telegramAcknowledgement(),
    fingerprint: 'none',
  };
}
