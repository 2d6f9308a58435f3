import { createHash } from 'node:crypto';
import { InvalidOption } from '../../core/errors.js';
import { checkVerifyInput } from '../../webhooks/verify/check-verify-input.js';
import { headerValue } from '../../webhooks/verify/headers.js';
import { matchingSecret } from '../../webhooks/verify/match-signature.js';
import { accept, reject, type SyncSignatureScheme, type VerifyInput } from '../../webhooks/verify/signature-scheme.js';

/** The header Telegram sends the webhook's `secret_token` in. */
export const TELEGRAM_SECRET_HEADER = 'X-Telegram-Bot-Api-Secret-Token';

/** What `setWebhook` accepts as `secret_token`: 1–256 characters of `A-Z`, `a-z`, `0-9`, `_` and `-`. */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

/** Options of {@link telegramSecretTokenScheme}. */
export interface TelegramSecretTokenOptions {
  /**
   * The `secret_token`(s) given to `setWebhook`: the current one first, the previous one too while a new
   * `setWebhook` is rolled out (rotation). Each 1–256 characters of `A-Z a-z 0-9 _ -`.
   */
  readonly secretTokens: string | readonly string[];
  /** Scheme name in results and the journal. @default 'telegram-secret-token' */
  readonly name?: string;
}

const digest = (text: string | Uint8Array) => createHash('sha256').update(text).digest();

/**
 * Telegram webhooks: Telegram signs nothing (no HMAC); `setWebhook`'s `secret_token` comes back verbatim in the
 * `X-Telegram-Bot-Api-Secret-Token` header of every delivery. The presented value is compared with each configured
 * token in constant time (SHA-256 digests of both, so neither length nor content leaks through timing). A missing
 * header is `missing_header`, any other value `signature_mismatch`; both are refused 401 before any receipt.
 * @throws {InvalidOption} no token, or a token `setWebhook` would refuse (empty, over 256 characters, other characters).
 * @see https://core.telegram.org/bots/api#setwebhook; fixtures/providers/telegram/protocol.json "webhook".
 * @example telegramSecretTokenScheme({ secretTokens: process.env.TELEGRAM_WEBHOOK_SECRET! })
 */
export function telegramSecretTokenScheme(options: TelegramSecretTokenOptions): SyncSignatureScheme {
  const list = typeof options.secretTokens === 'string' ? [options.secretTokens] : [...(options.secretTokens ?? [])];
  if (list.length === 0) throw new InvalidOption('secretTokens', 'at least one secret token is required');
  for (const token of list) {
    if (typeof token !== 'string' || !SECRET_TOKEN.test(token)) {
      throw new InvalidOption('secretTokens', 'each must be 1-256 characters of A-Z, a-z, 0-9, _ and - (setWebhook)');
    }
  }
  const digests = list.map((token) => digest(token));
  const name = options.name ?? 'telegram-secret-token';

  function verify(input: VerifyInput) {
    const { headers } = checkVerifyInput(input);
    const presented = headerValue(headers, TELEGRAM_SECRET_HEADER);
    if (presented === undefined) {
      return reject(name, 'missing_header', TELEGRAM_SECRET_HEADER, 'no secret token header');
    }
    const index = matchingSecret(digests, [digest(presented)], (expected) => expected);
    if (index === -1) {
      return reject(name, 'signature_mismatch', TELEGRAM_SECRET_HEADER, 'the secret token matches no configured token');
    }
    return accept(name, index, null);
  }
  return { name, verify };
}
