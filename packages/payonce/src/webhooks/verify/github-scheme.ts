import { hmacScheme } from './hmac-scheme.js';
import type { SecretsInput } from './scheme-options.js';
import type { SyncSignatureScheme } from './signature-scheme.js';

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the webhook secret as
 * UTF-8. The `sha256=` prefix is required; there is no timestamp (replays are caught by the receipt on
 * `X-GitHub-Delivery`, which stays the same on redelivery). Several secrets during rotation.
 * @throws {InvalidOption} no secret or an empty one.
 * @see https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
 * @example const scheme = githubScheme({ secrets: process.env.GITHUB_WEBHOOK_SECRET! });
 */
export function githubScheme(options: { secrets: SecretsInput; name?: string }): SyncSignatureScheme {
  return hmacScheme({
    name: options.name ?? 'github',
    secrets: options.secrets,
    header: 'X-Hub-Signature-256',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
  });
}
