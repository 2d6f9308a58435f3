import { InvalidOption } from 'payonce/internal/core/errors.js';
import { botIdOfToken } from 'payonce/internal/providers/telegram/telegram-bot-id.js';

/** The settings of the Click, Uzum and Telegram endpoints (docs/service.md "Payme, Click and Uzum", "Telegram"). */
export interface LocalProviderSettings {
  /**
   * Your Click `service_id` (a positive integer); with `clickSecretKey`, `POST /click/prepare` and
   * `POST /click/complete` serve Click's SHOP API on the service's orders. @default none (no `/click/*` routes)
   */
  clickServiceId?: number | null;
  /** The SECRET_KEY of that Click service (comma-separated or listed during a rotation). @default none */
  clickSecretKey?: string | readonly string[] | null;
  /** The Basic-authorization login Uzum Bank issued; with the password and service id, `POST /uzum/*`. */
  uzumLogin?: string | null;
  /** The Basic-authorization password Uzum Bank issued (never logged). @default none */
  uzumPassword?: string | null;
  /** Your service id issued by Uzum Bank (a positive integer). @default none */
  uzumServiceId?: number | null;
  /**
   * The Telegram bot token from @BotFather (`<bot id>:<secret>`); with `telegramSecretToken`, `POST /telegram/webhook`
   * takes the bot's updates and the service's `XTR` orders are paid with Telegram Stars. Used in Bot API request URLs
   * only: never logged, stored or put in an error. @default none (no `/telegram/*` routes)
   */
  telegramBotToken?: string | null;
  /**
   * The `secret_token` given to `setWebhook` (1–256 of `A-Z a-z 0-9 _ -`; comma-separated or listed during a
   * rotation, the new one first). Required with the bot token: a webhook without it would take forged
   * `successful_payment` updates. @default none
   */
  telegramSecretToken?: string | readonly string[] | null;
  /** Base URL of the Bot API (the Telegram sandbox). @default 'https://api.telegram.org' */
  telegramApiUrl?: string | null;
}

/** Click's endpoint settings, checked. */
export interface ClickConfig {
  readonly serviceId: number;
  readonly secretKeys: readonly string[];
}

/** Uzum's endpoint settings, checked. */
export interface UzumConfig {
  readonly login: string;
  readonly password: string;
  readonly serviceId: number;
}

/** Telegram's settings, checked. */
export interface TelegramConfig {
  /** The bot token (request URLs only; never logged). */
  readonly token: string;
  /** The digits before `:` in the token: the bot id of the receipt keys. */
  readonly botId: string;
  readonly secretTokens: readonly string[];
  /** Base URL of the Bot API, `null` for Telegram's own. */
  readonly apiUrl: string | null;
}

/** {@link LocalProviderSettings} checked: each provider's settings, or `null` when it is not enabled. */
export interface LocalProviderConfig {
  readonly click: ClickConfig | null;
  readonly uzum: UzumConfig | null;
  readonly telegram: TelegramConfig | null;
}

function given(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '';
}

function serviceIdOf(value: unknown, name: string): number {
  const n = typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidOption(name, 'must be a positive integer');
  }
  return n;
}

function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidOption(name, 'must be a non-empty string');
  return value;
}

function keysOf(value: string | readonly string[] | null | undefined): readonly string[] {
  if (value === null || value === undefined) return Object.freeze([]);
  const list = typeof value === 'string' ? value.split(',') : [...value];
  return Object.freeze(list.map((s) => String(s).trim()).filter((s) => s !== ''));
}

function apiUrlOf(value: unknown): string | null {
  if (!given(value)) return null;
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') return String(value).replace(/\/+$/, '');
  } catch {
    // fall through to the typed error
  }
  throw new InvalidOption('telegramApiUrl', 'must be an http(s) URL');
}

/**
 * Telegram's settings: the bot token and the secret token(s) together, or neither.
 * @throws {InvalidOption} one without the other; a token that is not `<bot id>:<secret>` (the message never holds
 *   it); a secret token `setWebhook` would refuse; an API URL that is not http(s).
 */
function telegramOf(settings: LocalProviderSettings): TelegramConfig | null {
  const secretTokens = keysOf(settings.telegramSecretToken);
  const parts = [given(settings.telegramBotToken), secretTokens.length > 0];
  if (parts.some(Boolean) && !parts.every(Boolean)) {
    throw new InvalidOption('telegramBotToken', 'Telegram needs both the bot token and the webhook secret token');
  }
  if (!parts[0]) return null;
  const token = settings.telegramBotToken as string;
  const botId = botIdOfToken(token, 'telegramBotToken');
  if (/\s|\//.test(token)) throw new InvalidOption('telegramBotToken', 'is not a bot token ("<bot id>:<secret>")');
  if (!secretTokens.every((t) => /^[A-Za-z0-9_-]{1,256}$/.test(t))) {
    throw new InvalidOption(
      'telegramSecretToken',
      'each must be 1-256 characters of A-Z, a-z, 0-9, _ and - (setWebhook)',
    );
  }
  return Object.freeze({ token, botId, secretTokens, apiUrl: apiUrlOf(settings.telegramApiUrl) });
}

/**
 * Checks the Click, Uzum and Telegram settings: each provider is enabled only by ALL its settings (Click: service id and
 * secret key; Uzum: login, password and service id), so a half-configured provider is refused at start rather
 * than answering every call with an authentication error (Telegram: bot token and secret token).
 * @throws {InvalidOption} some but not all of a provider's settings, a service id that is not a positive integer,
 *   a blank login or password, a malformed bot token, secret token or Bot API URL.
 */
export function resolveLocalProviders(settings: LocalProviderSettings): LocalProviderConfig {
  const clickKeys = keysOf(settings.clickSecretKey);
  const clickParts = [given(settings.clickServiceId), clickKeys.length > 0];
  if (clickParts.some(Boolean) && !clickParts.every(Boolean)) {
    throw new InvalidOption('clickServiceId', 'Click needs both the service id and the secret key');
  }
  const uzumParts = [settings.uzumLogin, settings.uzumPassword, settings.uzumServiceId].map(given);
  if (uzumParts.some(Boolean) && !uzumParts.every(Boolean)) {
    throw new InvalidOption('uzumLogin', 'Uzum needs the login, the password and the service id');
  }
  const click = clickParts[0]
    ? Object.freeze({ serviceId: serviceIdOf(settings.clickServiceId, 'clickServiceId'), secretKeys: clickKeys })
    : null;
  const uzum = uzumParts[0]
    ? Object.freeze({
        login: textOf(settings.uzumLogin, 'uzumLogin'),
        password: textOf(settings.uzumPassword, 'uzumPassword'),
        serviceId: serviceIdOf(settings.uzumServiceId, 'uzumServiceId'),
      })
    : null;
  return Object.freeze({ click, uzum, telegram: telegramOf(settings) });
}
