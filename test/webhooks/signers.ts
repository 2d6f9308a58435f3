import { createHmac } from 'node:crypto';

// Independent signers written from the providers' documentation with node:crypto only, so the tests do not
// check payonce against itself.

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256(base64-decoded key, `id.ts.body`). */
export function signStandardWebhooks(keyBase64: string, id: string, ts: number | string, body: Uint8Array): string {
  const mac = createHmac('sha256', Buffer.from(keyBase64, 'base64'));
  mac.update(`${id}.${ts}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** Stripe: hex HMAC-SHA256(secret as UTF-8, `t.body`). */
export function stripeV1(secret: string, t: number | string, body: Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** Plain HMAC of the body. */
export function hmacOf(algorithm: string, secret: string, body: Uint8Array, encoding: 'hex' | 'base64'): string {
  return createHmac(algorithm, secret).update(body).digest(encoding);
}
