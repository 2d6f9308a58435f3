import type { SandboxSigning } from './webhook-signer.js';

/** One genuine event the sandbox emitted (what a provider's dashboard lists under "Events"). */
export interface SandboxEvent {
  /** Stripe `evt_…` (also the body's `id`), Standard Webhooks `msg_…` (the `webhook-id` header). */
  readonly id: string;
  /** `payment_intent.succeeded`, `payment_intent.payment_failed`, `payment_intent.canceled`, `charge.succeeded`, `charge.refunded`. */
  readonly type: string;
  /** Scheme and secret in effect when the event was created; every delivery of it is signed with them. */
  readonly signing: SandboxSigning;
  /** The PaymentIntent (`pi_…`) the event is about. */
  readonly paymentId: string;
  readonly merchantReference: string;
  /** Amount the event reports, integer minor units. */
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
  /** Creation time, ms since the epoch. */
  readonly createdAtMs: number;
  /** The exact request body sent on every delivery (UTF-8 JSON). */
  readonly body: string;
}

/** Injected copies sent before an event's genuine delivery (never retried). */
export interface EventVariants {
  /** Send one copy signed with a wrong secret. */
  readonly forged: boolean;
  /** A body whose amount was changed after signing: sent with the signature of the original body. */
  readonly inTransitBody: string | null;
  /** An authentic event with another id and a changed amount, correctly signed. */
  readonly resigned: { readonly id: string; readonly body: string } | null;
}

/** No injected copies. */
export const NO_VARIANTS: EventVariants = Object.freeze({ forged: false, inTransitBody: null, resigned: null });
