import { InvalidOption } from '../../core/errors.js';
import { inProviderSpan } from '../provider-span.js';
import { telegramApiSpan } from './telegram-span.js';

/** The `fetch` the Bot API clients call: the global one, undici's, or a test's. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Where and how payonce reaches the Bot API. */
export interface TelegramApiOptions {
  /** The bot token (`123456:ABC…`). Used only in request URLs; never stored in a row, an event or an error. */
  readonly token: string;
  /** Base URL of the Bot API (a local Bot API server or a sandbox). @default 'https://api.telegram.org' */
  readonly apiBaseUrl?: string;
  /** The `fetch` to call. @default globalThis.fetch */
  readonly fetch?: FetchLike;
}

/** What one Bot API call gave: its `result`, or a failure with what Telegram said (never the token). */
export type TelegramCallResult<T> =
  | { readonly ok: true; readonly result: T }
  | {
      readonly ok: false;
      /** Telegram's `error_code` (400, 429, 5xx), the HTTP status, or `null` for a network error. */
      readonly status: number | null;
      /** Telegram's `description` (`Bad Request: …`), or the network error's text; the token is never in it. */
      readonly description: string;
      /** `parameters.retry_after` (seconds in the API) as milliseconds, when Telegram gave one (429). */
      readonly retryAfterMs: number | null;
    };

/** The API base URL parsed. @throws {InvalidOption} (`apiBaseUrl`) not a URL. */
function originOf(base: string): URL {
  try {
    return new URL(base);
  } catch {
    throw new InvalidOption('apiBaseUrl', 'must be an http(s) URL');
  }
}

type ApiBody = {
  ok?: unknown;
  result?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
};

/**
 * Calls any Bot API method as `POST <base>/bot<token>/<method>` with a JSON body and reads Telegram's answer
 * `{ ok: true, result }` or `{ ok: false, error_code, description }`. Never throws for an answer or a network error
 * (it resolves to a failure); error texts never carry the token, and the token is used in request URLs only.
 * @throws {InvalidOption} at construction: a token with no `<digits>:`, or a base URL that is not http(s).
 * @see https://core.telegram.org/bots/api#making-requests; fixtures/providers/telegram/protocol.json "response".
 * @example await new TelegramBotClient({ token }).call('answerPreCheckoutQuery', { pre_checkout_query_id, ok: true })
 */
export class TelegramBotClient {
  readonly #base: string;
  readonly #token: string;
  readonly #fetch: FetchLike;
  /** The API's origin (for the span's `server.address`; never the URL with the token). */
  readonly #server: URL;

  constructor(options: TelegramApiOptions) {
    const { token } = options;
    if (typeof token !== 'string' || !/^[0-9]+:[^\s/]+$/.test(token)) {
      throw new InvalidOption('token', 'is not a bot token ("<bot id>:<secret>")');
    }
    const base = (options.apiBaseUrl ?? 'https://api.telegram.org').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(base)) throw new InvalidOption('apiBaseUrl', 'must be an http(s) URL');
    this.#token = token;
    this.#base = `${base}/bot${token}/`;
    this.#server = originOf(base);
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  /** Calls `method` with `params` (JSON); an abort rejects with the signal's reason. */
  call<T>(method: string, params: object, signal?: AbortSignal): Promise<TelegramCallResult<T>> {
    return inProviderSpan<TelegramCallResult<T>>(telegramApiSpan(method, this.#server), () =>
      this.#call<T>(method, params, signal),
    );
  }

  async #call<T>(method: string, params: object, signal?: AbortSignal): Promise<TelegramCallResult<T>> {
    let status: number | null = null;
    try {
      const response = await this.#fetch(`${this.#base}${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        signal,
      });
      status = response.status;
      const body = (await response.json()) as ApiBody;
      if (body?.ok === true && 'result' in body) return { ok: true, result: body.result as T };
      const code = typeof body?.error_code === 'number' ? body.error_code : status;
      const retry = body?.parameters?.retry_after;
      const retryAfterMs = typeof retry === 'number' && retry >= 0 ? Math.ceil(retry * 1000) : null;
      return this.#failure(
        code,
        typeof body?.description === 'string' ? body.description : `HTTP ${status}`,
        retryAfterMs,
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return this.#failure(status, error instanceof Error ? `${error.name}: ${error.message}` : String(error), null);
    }
  }

  #failure(status: number | null, description: string, retryAfterMs: number | null): TelegramCallResult<never> {
    return { ok: false, status, description: description.split(this.#token).join('[REDACTED]'), retryAfterMs };
  }
}
