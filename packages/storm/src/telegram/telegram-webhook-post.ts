import type { SandboxUpdate } from '@payonce/sandbox/telegram';

/** The header Telegram sends `setWebhook`'s `secret_token` in. */
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** How one webhook POST is made: with another secret token (a forged or outdated one), or its answer cut. */
export interface WebhookPostOptions {
  /** The secret token to send instead of the target's. */
  readonly secretToken?: string;
  /** Drop the connection this many ms after sending (Telegram's timeout: the answer is lost). */
  readonly cutAfterMs?: number;
  /** Budget of the POST, ms. @default 10_000 */
  readonly timeoutMs?: number;
}

/**
 * POSTs `update` to `webhookUrl` as Telegram does (JSON, `X-Telegram-Bot-Api-Secret-Token`) and returns the HTTP
 * status, or `null` when no answer came (cut, timed out, connection refused while the bot restarts).
 */
export async function postUpdate(
  webhookUrl: string,
  secretToken: string,
  update: SandboxUpdate,
  options: WebhookPostOptions = {},
): Promise<number | null> {
  const signal = AbortSignal.timeout(options.cutAfterMs ?? options.timeoutMs ?? 10_000);
  try {
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SECRET_HEADER]: options.secretToken ?? secretToken },
      body: JSON.stringify(update),
      signal,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return null;
  }
}
