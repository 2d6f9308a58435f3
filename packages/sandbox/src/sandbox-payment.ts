import type { ResolvedPaymentPlan } from './payment-plan.js';
import type { JsonObject } from './wire/stripe-api-error.js';

/**
 * A PaymentIntent's status, in Stripe's names and with Stripe's transitions:
 * `requires_payment_method` → `requires_confirmation` → (`requires_action`) → `processing` → `succeeded`, or
 * `requires_capture` (manual capture) → `succeeded`; `canceled` from any state before success; a decline goes back to
 * `requires_payment_method` with `last_payment_error`.
 * @see https://docs.stripe.com/payments/paymentintents/lifecycle
 */
export type SandboxPaymentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';

/**
 * How a PaymentIntent is settled: `card` (a test card or `pm_card_…` PaymentMethod decides, synchronously, as at
 * Stripe) or `plan` (created with `confirm=true` and no payment method: the sandbox's asynchronous test method,
 * `processing` until its plan settles it; what `SandboxClient` and the storm use).
 */
export type SandboxPaymentFlow = 'card' | 'plan';

/** One PaymentIntent as the sandbox holds it. Money in integer minor units; times in Unix seconds like Stripe's. */
export interface SandboxPayment {
  /** PaymentIntent id, `pi_…`. */
  readonly id: string;
  /** `metadata.merchant_reference`, `null` when the creator sent none. */
  readonly merchantReference: string | null;
  /** `metadata.order_id`, `null` when the creator sent none. */
  readonly orderId: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly description: string | null;
  readonly amountMinor: number;
  /** ISO-4217, upper case (Stripe writes it lower case on the wire). */
  readonly currency: string;
  readonly idempotencyKey: string | null;
  /** Id of the API request that created it, `req_…`. */
  readonly requestId: string;
  readonly createdSec: number;
  readonly status: SandboxPaymentStatus;
  readonly flow: SandboxPaymentFlow;
  readonly captureMethod: 'automatic' | 'automatic_async' | 'manual';
  /** `pm_…` attached, or `null`. */
  readonly paymentMethod: string | null;
  readonly paymentMethodTypes: readonly string[];
  /** The newest charge (`ch_…`) of a confirmation, or `null`. */
  readonly latestChargeId: string | null;
  readonly amountCapturable: number;
  readonly amountReceived: number;
  /** Refunded amount over all its charges, integer minor units. */
  readonly refundedMinor: number;
  /** Stripe's `last_payment_error` after a decline, else `null`. */
  readonly lastPaymentError: JsonObject | null;
  readonly canceledSec: number | null;
  readonly cancellationReason: string | null;
  /** The knobs this payment was created with. */
  readonly plan: ResolvedPaymentPlan;
}

/** A charge made by confirming a PaymentIntent (`ch_…`), successful or failed. */
export interface SandboxCharge {
  readonly id: string;
  readonly paymentIntentId: string;
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
  readonly status: 'succeeded' | 'failed' | 'pending';
  readonly captured: boolean;
  readonly amountCaptured: number;
  readonly amountRefunded: number;
  readonly paymentMethod: string | null;
  /** Card brand and last four digits of the test card used. */
  readonly card: { readonly brand: string; readonly last4: string } | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly declineCode: string | null;
  readonly createdSec: number;
  readonly metadata: Readonly<Record<string, string>>;
}

/** A refund (`re_…`) of part or all of a charge. */
export interface SandboxRefund {
  readonly id: string;
  readonly chargeId: string;
  readonly paymentIntentId: string;
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
  readonly status: 'succeeded' | 'pending' | 'failed' | 'canceled';
  readonly reason: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly createdSec: number;
}
