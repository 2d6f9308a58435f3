import { InvalidOption } from '../../core/errors.js';

const BOT_ID = /^[1-9][0-9]{0,19}$/;

/**
 * Checks a configured bot id (the bot's numeric user id, a decimal string) and returns it.
 * @throws {InvalidOption} `option` is not a decimal string of 1–20 digits without a leading zero.
 */
export function checkBotId(value: unknown, option = 'botId'): string {
  if (typeof value !== 'string' || !BOT_ID.test(value)) {
    throw new InvalidOption(option, 'must be the bot id: the decimal digits before ":" in the bot token');
  }
  return value;
}

/**
 * The bot id of a bot token: the digits before its `:` (a token looks like `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`).
 * Only the id is kept; the token itself is never stored, journaled or put in an error message.
 * @throws {InvalidOption} `token` has no numeric part before a `:` (the message never contains the token).
 * @see https://core.telegram.org/bots/api#authorizing-your-bot; fixtures/providers/telegram/protocol.json "token".
 * @example botIdOfToken(process.env.BOT_TOKEN!) // '123456'
 */
export function botIdOfToken(token: string, option = 'token'): string {
  const colon = typeof token === 'string' ? token.indexOf(':') : -1;
  if (colon <= 0 || colon === token.length - 1)
    throw new InvalidOption(option, 'is not a bot token ("<bot id>:<secret>")');
  return checkBotId(token.slice(0, colon), option);
}
