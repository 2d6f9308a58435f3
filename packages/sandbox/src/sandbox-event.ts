import type { SandboxSigning } from './webhook-signer.js';

/** One genuine event the sandbox emitted (what Stripe's dashboard lists under "Events", `GET /v1/events`). */
export interface SandboxEvent {
  /** Stripe `evt_…` (also the body's `id`), Standard Webhooks `msg_…` (the `webhook-id` header). */
  readonly id: string;
  /** A Stripe event type: `payment_intent.*`, `charge.*`, `refund.*` (docs/sandbox.md "Webhooks"). */
  readonly type: string;
  /** Scheme and secret in effect when the event was created; every delivery of it is signed with them. */
  readonly signing: SandboxSigning;
  /** The PaymentIntent (`pi_…`) the event is about. */
  readonly paymentId: string;
  readonly merchantReference: string | null;
  /** Amount the event reports, integer minor units. */
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
  /** Creation time, ms since the epoch. */
  readonly createdAtMs: number;
  /** The exact request body sent on every delivery to the default endpoint (UTF-8 JSON, in its scheme). */
  readonly body: string;
  /** The Stripe event object (`GET /v1/events/:id`, and the body sent to registered endpoints). */
  readonly stripeEvent: Readonly<Record<string, unknown>>;
  /** `Request-Id` of the API request that caused it, `null` for a control call or a scheduled settlement. */
  readonly requestId: string | null;
  /** Sandbox-clock creation time, Unix seconds (the event's `created`). */
  readonly createdSec: number;
}
