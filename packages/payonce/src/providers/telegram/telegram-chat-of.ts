import type { TelegramUpdate } from './telegram-update.js';
import { telegramUpdateKind } from './telegram-update.js';

type Obj = { readonly [key: string]: unknown };
const asObj = (value: unknown): Obj | null => (typeof value === 'object' && value !== null ? (value as Obj) : null);
const idOf = (value: unknown): string | null => {
  const id = asObj(value)?.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
};

/**
 * The chat an update belongs to, for per-chat ordering: the `chat` of the update's object (messages, edits, channel
 * posts, member updates, join requests, reactions, business messages), else the chat of a callback query's
 * `message`, else the user (`from`, or `user` of a poll answer) — a private chat's id is its user's id. `null`
 * when the update names neither (a `poll` update): such an update waits for nobody and nobody waits for it.
 * @see https://core.telegram.org/bots/api#update (one object per update), #chat, #callbackquery.
 */
export function telegramChatOf(update: TelegramUpdate): string | null {
  const object = asObj(update[telegramUpdateKind(update)]);
  if (object === null) return null;
  return idOf(object.chat) ?? idOf(asObj(object.message)?.chat) ?? idOf(object.from) ?? idOf(object.user) ?? null;
}
