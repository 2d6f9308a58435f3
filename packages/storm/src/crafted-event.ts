import { standardWebhooksEvent, stripeEvent, stripeId } from '@payonce/sandbox/internal/stripe-objects.js';
import { newSigningSecret, type SandboxSigning, signedHeaders } from '@payonce/sandbox/internal/webhook-signer.js';

/** A webhook request the storm built itself: where it goes, its id, exact body and headers. */
export interface CraftedEvent {
  /** `stripe` → `POST /webhooks/stripe`, `standard-webhooks` → `POST /webhooks/standard-webhooks`. */
  readonly endpoint: SandboxSigning['scheme'];
  readonly eventId: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** How to sign a crafted event. */
export type CraftedSignature =
  /** With the sandbox's real secret, now: an authentic event. */
  | 'valid'
  /** With a random secret of the right format: a forgery. */
  | 'wrong-secret'
  /** No signature headers at all. */
  | 'missing'
  /** With the real secret but a timestamp 10 minutes old (beyond Stripe's and Standard Webhooks' 5 min tolerance). */
  | 'stale'
  /** Signed with the real secret, then the amount in the body doubled (changed in transit). */
  | 'tampered';

/** What a crafted event says. */
export interface CraftedEventSpec {
  /** The PaymentIntent object as the sandbox serves it (`GET /v1/payment_intents/:id`). */
  readonly intent: Record<string, unknown>;
  /** Changes applied to the reported object (e.g. another amount, currency or order id). */
  readonly change?: (intent: Record<string, unknown>) => void;
  /** @default a fresh `evt_…` / `msg_…` id */
  readonly eventId?: string;
  readonly signature: CraftedSignature;
  readonly nowMs: number;
}

const STALE_MS = 600_000;

/**
 * Builds a `payment_intent.succeeded` event about `spec.intent` in the sandbox's current scheme (Stripe envelope or
 * Standard Webhooks `{ type, timestamp, data }`), signed as `spec.signature` asks. Used by scenarios 10, 11 and 18
 * to send forged, tampered and authentic-but-foreign events the provider itself would never send.
 * @see docs/sandbox.md "Webhooks"; docs/design.md §5 "Order of work".
 */
export function craftSucceededEvent(signing: SandboxSigning, spec: CraftedEventSpec): CraftedEvent {
  const intent: Record<string, unknown> = {
    ...spec.intent,
    metadata: { ...((spec.intent.metadata as Record<string, unknown> | undefined) ?? {}) },
    status: 'succeeded',
    amount_received: spec.intent.amount,
  };
  spec.change?.(intent);
  const eventId = spec.eventId ?? stripeId(signing.scheme === 'stripe' ? 'evt' : 'msg');
  const type = 'payment_intent.succeeded';
  const signedAtMs = spec.signature === 'stale' ? spec.nowMs - STALE_MS : spec.nowMs;
  const envelope = (object: Record<string, unknown>) =>
    JSON.stringify(
      signing.scheme === 'stripe'
        ? stripeEvent(eventId, type, object, Math.floor(signedAtMs / 1000), { id: null, idempotencyKey: null })
        : standardWebhooksEvent(type, signedAtMs, object),
    );
  const body = envelope(intent);
  const signedWith =
    spec.signature === 'wrong-secret' ? { ...signing, secret: newSigningSecret(signing.scheme) } : signing;
  const headers = signedHeaders(signedWith, eventId, body, Math.floor(signedAtMs / 1000));
  if (spec.signature === 'missing') {
    for (const name of ['stripe-signature', 'webhook-signature']) delete headers[name];
  }
  const doubled = Number(intent.amount) * 2;
  const sent =
    spec.signature === 'tampered' ? envelope({ ...intent, amount: doubled, amount_received: doubled }) : body;
  return Object.freeze({ endpoint: signing.scheme, eventId, body: sent, headers });
}
