import { InvalidOption } from '../../core/errors.js';
import { isUpdateId, type TelegramUpdate } from './telegram-update.js';

/** The `fetch` the runner calls: the global one, undici's, or a test's. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

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

/** Where and how the runner reaches the Bot API. */
export interface TelegramApiOptions {
  /** The bot token (`123456:ABC…`). Used only in request URLs; never stored in a row, an event or an error. */
  readonly token: string;
  /** Base URL of the Bot API (a local Bot API server or a sandbox). @default 'https://api.telegram.org' */
  readonly apiBaseUrl?: string;
  /** The `fetch` to call. @default globalThis.fetch */
  readonly fetch?: FetchLike;
}

type ApiBody = {
  ok?: unknown;
  result?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
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
  readonly #url: string;
  readonly #token: string;
  readonly #fetch: FetchLike;

  constructor(options: TelegramApiOptions) {
    const { token } = options;
    if (typeof token !== 'string' || !/^[0-9]+:[^\s/]+$/.test(token)) {
      throw new InvalidOption('token', 'is not a bot token ("<bot id>:<secret>")');
    }
    const base = (options.apiBaseUrl ?? 'https://api.telegram.org').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(base)) throw new InvalidOption('apiBaseUrl', 'must be an http(s) URL');
    this.#token = token;
    this.#url = `${base}/bot${token}/getUpdates`;
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  /** Calls `getUpdates`; resolves to a failure instead of throwing (an abort rejects with the signal's reason). */
  async getUpdates(params: GetUpdatesParams, signal?: AbortSignal): Promise<GetUpdatesResult> {
    let status: number | null = null;
    try {
      const response = await this.#fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        signal,
      });
      status = response.status;
      const body = (await response.json()) as ApiBody;
      if (body?.ok === true && Array.isArray(body.result)) {
        const updates = body.result as unknown[];
        if (updates.every((u) => typeof u === 'object' && u !== null && isUpdateId((u as TelegramUpdate).update_id))) {
          return { ok: true, updates: updates as TelegramUpdate[] };
        }
        return this.#failure(status, 'an update has no integer update_id', null);
      }
      const code = typeof body?.error_code === 'number' ? body.error_code : status;
      const description = typeof body?.description === 'string' ? body.description : `HTTP ${status}`;
      const retry = body?.parameters?.retry_after;
      const retryAfterMs = typeof retry === 'number' && retry >= 0 ? Math.ceil(retry * 1000) : null;
      return this.#failure(code, description, retryAfterMs);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return this.#failure(status, text, null);
    }
  }

  #failure(status: number | null, description: string, retryAfterMs: number | null): GetUpdatesResult {
    return { ok: false, status, description: description.split(this.#token).join('[REDACTED]'), retryAfterMs };
  }
}
