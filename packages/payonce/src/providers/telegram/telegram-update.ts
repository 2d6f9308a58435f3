import { RequestKey } from '../../core/request-key.js';

/** The `provider` of every Telegram update's receipt key, webhook and long polling alike. */
export const TELEGRAM_PROVIDER = 'telegram';

/**
 * One Telegram Bot API `Update`: its `update_id` and at most one other field naming the kind of update (`message`,
 * `callback_query`, `pre_checkout_query`, …), kept as Telegram sent it.
 * @see https://core.telegram.org/bots/api#update; fixtures/providers/telegram/protocol.json "update".
 */
export interface TelegramUpdate {
  /** The update's identifier: sequential per bot (it may jump after a week without updates). */
  readonly update_id: number;
  readonly [kind: string]: unknown;
}

/**
 * The receipt key of one update: provider `telegram`, external id `<botId>:<update_id>`. The webhook profile and the
 * long-polling runner use the same key, so a bot that moves between the two still applies each update once.
 * `update_id` is unique per bot only, hence the bot id in the key.
 * @throws {InvalidRequestKey} `botId` is empty or too long.
 * @see docs/providers/telegram.md "Receipt key"; https://core.telegram.org/bots/api#update.
 * @example telegramUpdateKey('123456', 9001) // RequestKey('telegram', '123456:9001')
 */
export function telegramUpdateKey(botId: string, updateId: number): RequestKey {
  return new RequestKey(TELEGRAM_PROVIDER, `${botId}:${updateId}`);
}

/** The update's kind: its one field besides `update_id` (`message`, `callback_query`, …), or `''` if none. */
export function telegramUpdateKind(update: Readonly<Record<string, unknown>>): string {
  for (const name of Object.keys(update)) if (name !== 'update_id') return name;
  return '';
}

/** True for an `update_id` as Telegram sends it: a non-negative safe integer. */
export function isUpdateId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
