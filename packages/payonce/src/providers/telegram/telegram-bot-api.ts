import { type FetchLike, type TelegramApiOptions, TelegramBotClient } from './telegram-bot-client.js';
import { isUpdateId, type TelegramUpdate } from './telegram-update.js';

export type { FetchLike, TelegramApiOptions };

/** Parameters of one `getUpdates` call. */
export interface GetUpdatesParams {
  /** First update to return; every update below it is confirmed (Telegram forgets it). Absent: earliest unconfirmed. */
  readonly offset?: number;
  /** At most this many updates, 1–100. */
  readonly limit: number;
  /** Long-polling timeout, seconds (0 = short polling). */
  readonly timeout: number;
  /** Update kinds to receive; absent: the previous setting. */
  readonly allowed_updates?: readonly string[];
}

/** What one `getUpdates` call gave: updates, or a failure with what Telegram said (never the token). */
export type GetUpdatesResult =
  | { readonly ok: true; readonly updates: readonly TelegramUpdate[] }
  | {
      readonly ok: false;
      /** Telegram's `error_code` (409 conflict, 429 flood control, 5xx), the HTTP status, or `null` for a network error. */
      readonly status: number | null;
      readonly description: string;
      /** `parameters.retry_after` (seconds in the API) as milliseconds, when Telegram gave one. */
      readonly retryAfterMs: number | null;
    };

/**
 * The one Bot API method the long-polling runner calls, `getUpdates`, as `POST <base>/bot<token>/getUpdates` with a
 * JSON body. The answer is `{ ok: true, result: Update[] }` or `{ ok: false, error_code, description, parameters?:
 * { retry_after } }`. A network error, a body that is not such an answer, or an update without an integer
 * `update_id` is a failure too (never a partial batch). Error texts never carry the token.
 * @throws {InvalidOption} at construction: a token with no `:`, or a base URL that is not http(s).
 * @see https://core.telegram.org/bots/api#making-requests, #getupdates, #responseparameters;
 * fixtures/providers/telegram/protocol.json "getUpdates".
 */
export class TelegramBotApi {
  readonly #client: TelegramBotClient;

  constructor(options: TelegramApiOptions) {
    this.#client = new TelegramBotClient(options);
  }

  /** Calls `getUpdates`; resolves to a failure instead of throwing (an abort rejects with the signal's reason). */
  async getUpdates(params: GetUpdatesParams, signal?: AbortSignal): Promise<GetUpdatesResult> {
    const answer = await this.#client.call<unknown>('getUpdates', params, signal);
    if (!answer.ok) return answer;
    const updates = answer.result;
    if (
      Array.isArray(updates) &&
      updates.every((u) => typeof u === 'object' && u !== null && isUpdateId((u as TelegramUpdate).update_id))
    ) {
      return { ok: true, updates: updates as TelegramUpdate[] };
    }
    return { ok: false, status: 200, description: 'an update has no integer update_id', retryAfterMs: null };
  }
}
