import type { ResolvedPaymentPlan } from './payment-plan.js';

/**
 * A sandbox payment's state. Stripe names: `processing` (created, not settled), `requires_action`, `succeeded`,
 * `failed` (declined; Stripe shows `requires_payment_method` with `last_payment_error`), `canceled`.
 */
export type SandboxPaymentStatus = 'processing' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';

/** One payment as the sandbox holds it. Money in integer minor units; times in Unix seconds like Stripe's. */
export interface SandboxPayment {
  /** PaymentIntent id, `pi_…`. */
  readonly id: string;
  /** Id of the charge made when it succeeds, `ch_…`. */
  readonly chargeId: string;
  readonly merchantReference: string;
  /** `metadata.order_id` when the creator sent one. */
  readonly orderId: string | null;
  readonly amountMinor: number;
  /** ISO-4217, upper case (Stripe writes it lower case on the wire). */
  readonly currency: string;
  readonly idempotencyKey: string | null;
  /** Id of the API request that created it, `req_…`. */
  readonly requestId: string;
  readonly createdSec: number;
  readonly status: SandboxPaymentStatus;
  /** Refunded amount, integer minor units. */
  readonly refundedMinor: number;
  readonly canceledSec: number | null;
  /** The knobs this payment was created with. */
  readonly plan: ResolvedPaymentPlan;
}
