import { createHmac, randomBytes } from 'node:crypto';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { Webhook } from 'standardwebhooks';

/** How the sandbox signs webhooks: Stripe's `Stripe-Signature` or Standard Webhooks' `webhook-*` headers. */
export type SandboxSigningScheme = 'stripe' | 'standard-webhooks';

/** The signing configuration: scheme and the secret as a receiver configures it. */
export interface SandboxSigning {
  readonly scheme: SandboxSigningScheme;
  /**
   * Stripe: `whsec_…`, used verbatim (UTF-8) as the HMAC key. Standard Webhooks: `whsec_` + base64 of the key
   * bytes (24–64 bytes).
   */
  readonly secret: string;
  /**
   * Older secrets still in use during a rotation: each delivery carries one more signature per secret (Stripe:
   * another `v1=`; Standard Webhooks: another `v1,…`), so receivers configured with either secret verify it.
   */
  readonly previousSecrets?: readonly string[];
}

/**
 * A fresh random secret in the scheme's format: Stripe `whsec_` + 32 base-62 characters, Standard Webhooks
 * `whsec_` + base64 of 32 random bytes.
 */
export function newSigningSecret(scheme: SandboxSigningScheme): string {
  if (scheme === 'standard-webhooks') return `whsec_${randomBytes(32).toString('base64')}`;
  return `whsec_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
}

/**
 * Checks `signing` and returns it.
 * @throws {InvalidOption} unknown scheme, empty secret, or a Standard Webhooks secret that is not `whsec_` + base64.
 */
export function checkSigning(signing: SandboxSigning): SandboxSigning {
  const { scheme, secret } = signing;
  const previousSecrets = signing.previousSecrets ?? [];
  if (!Array.isArray(previousSecrets) || previousSecrets.length > 5) {
    throw new InvalidOption('signing.previousSecrets', 'takes at most 5 secrets');
  }
  for (const previous of previousSecrets) checkSigning({ scheme, secret: previous });
  if (scheme !== 'stripe' && scheme !== 'standard-webhooks') {
    throw new InvalidOption('signing.scheme', 'must be stripe or standard-webhooks');
  }
  if (typeof secret !== 'string' || secret.length === 0) throw new InvalidOption('signing.secret', 'must be non-empty');
  if (scheme === 'standard-webhooks') {
    try {
      new Webhook(secret);
    } catch {
      throw new InvalidOption('signing.secret', 'a Standard Webhooks secret is whsec_ followed by base64');
    }
  }
  return previousSecrets.length === 0
    ? Object.freeze({ scheme, secret })
    : Object.freeze({ scheme, secret, previousSecrets: Object.freeze([...previousSecrets]) });
}

/**
 * The headers of one signed webhook request. Stripe: `Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of
 * "t.body" keyed with the secret's UTF-8 bytes>`. Standard Webhooks: `webhook-id: <eventId>`,
 * `webhook-timestamp: <unix s>`, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.t.body">` computed by the
 * `standardwebhooks` package. With `previousSecrets`, one signature per secret (current first), as during a secret
 * rotation. Each call signs anew: a retry carries the same event id and a new timestamp.
 * @see https://docs.stripe.com/webhooks#verify-manually; standard-webhooks spec "Signature scheme".
 */
export function signedHeaders(
  signing: SandboxSigning,
  eventId: string,
  body: string,
  nowSec: number,
): Record<string, string> {
  const secrets = [signing.secret, ...(signing.previousSecrets ?? [])];
  if (signing.scheme === 'stripe') {
    const v1 = secrets.map(
      (secret) => `v1=${createHmac('sha256', secret).update(`${nowSec}.`).update(body, 'utf8').digest('hex')}`,
    );
    return {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'stripe-signature': `t=${nowSec},${v1.join(',')}`,
    };
  }
  const signature = secrets.map((secret) => new Webhook(secret).sign(eventId, new Date(nowSec * 1000), body)).join(' ');
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(nowSec),
    'webhook-signature': signature,
  };
}
