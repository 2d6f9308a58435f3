/**
 * A Bot API refusal: answered `{ ok: false, error_code, description }` with `error_code` as the HTTP status.
 * @see https://core.telegram.org/bots/api#making-requests; fixtures/providers/telegram/protocol.json "response".
 */
export class TelegramBotError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
  ) {
    super(description);
    this.name = 'TelegramBotError';
  }
}

/** A 400 `Bad Request: <what>` (the shape of Telegram's descriptions). */
export const badRequest = (what: string): TelegramBotError => new TelegramBotError(400, `Bad Request: ${what}`);
