import { describe, expect, it } from 'vitest';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { newSigningSecret, type SandboxSigningScheme } from '../../packages/sandbox/src/webhook-signer.js';
import { type CraftedSignature, craftSucceededEvent } from '../../packages/storm/src/crafted-event.js';

const NOW = 1_796_000_000_000;
const INTENT = {
  id: 'pi_placeholder000000000000001',
  object: 'payment_intent',
  amount: 1999,
  amount_received: 0,
  currency: 'eur',
  status: 'processing',
  metadata: { merchant_reference: 'attempt-placeholder', order_id: 'order-placeholder' },
};

// The storm's crafted events must be exactly what they claim: verified by payonce's own schemes.
describe.each<SandboxSigningScheme>(['stripe', 'standard-webhooks'])('craftSucceededEvent (%s)', (scheme) => {
  const signing = { scheme, secret: newSigningSecret(scheme) };
  const verifier =
    scheme === 'stripe'
      ? stripeScheme({ secrets: [signing.secret] })
      : standardWebhooksScheme({ secrets: [signing.secret] });
  const verify = (signature: CraftedSignature, change?: (i: Record<string, unknown>) => void) => {
    const event = craftSucceededEvent(signing, { intent: INTENT, signature, nowMs: NOW, change });
    const result = verifier.verify({
      rawBody: new TextEncoder().encode(event.body),
      headers: event.headers,
      nowMs: NOW,
    });
    return { event, result, body: JSON.parse(event.body) as Record<string, unknown> };
  };
  const objectOf = (body: Record<string, unknown>) =>
    (scheme === 'stripe' ? (body.data as { object: Record<string, unknown> }).object : body.data) as Record<
      string,
      unknown
    >;

  it('valid: an authentic payment_intent.succeeded about the intent, in the scheme’s envelope', () => {
    const { event, result, body } = verify('valid', (i) => Object.assign(i, { currency: 'usd' }));
    expect(result.ok).toBe(true);
    expect(event.endpoint).toBe(scheme);
    expect(body.type).toBe('payment_intent.succeeded');
    expect(objectOf(body)).toMatchObject({ id: INTENT.id, status: 'succeeded', amount: 1999, currency: 'usd' });
    expect(event.eventId).toMatch(scheme === 'stripe' ? /^evt_/ : /^msg_/);
    if (scheme === 'stripe') expect(body.id).toBe(event.eventId);
    else expect(event.headers['webhook-id']).toBe(event.eventId);
    expect(INTENT.currency).toBe('eur');
  });

  it.each<[CraftedSignature, string]>([
    ['wrong-secret', 'signature_mismatch'],
    ['missing', 'missing_header'],
    ['stale', 'timestamp_too_old'],
    ['tampered', 'signature_mismatch'],
  ])('%s is rejected as %s', (signature, reason) => {
    const { result } = verify(signature);
    expect(result).toMatchObject({ ok: false, reason });
  });

  it('tampered doubles the amount after signing', () => {
    expect(objectOf(verify('tampered').body)).toMatchObject({ amount: 3998, amount_received: 3998 });
  });
});
