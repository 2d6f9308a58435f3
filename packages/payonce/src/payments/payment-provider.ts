/** What `openCheckout` asks a provider to create. @see docs/design.md §6; seed 002 `provider.createPayment`. */
export interface CreatePaymentRequest {
  /** The attempt's stored key `payment-attempt:<attemptId>`; the same key is sent on every retry of this attempt. */
  readonly idempotencyKey: string;
  /** The attempt id, echoed back by the provider in its events and look-ups. */
  readonly merchantReference: string;
  readonly orderId: string;
  /** Integer minor units of `currency`. */
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
}

/** A payment's status as a provider reports it (a subset of the attempt statuses). */
export type ProviderPaymentStatus = 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'cancelled';

/** A payment as the provider knows it. */
export interface ProviderPayment {
  /** The provider's own payment id (Stripe `pi_…`). */
  readonly paymentId: string;
  readonly merchantReference: string;
  readonly status: ProviderPaymentStatus;
  /** Integer minor units of `currency`. */
  readonly amountMinor: number;
  readonly currency: string;
  /** Where to send the customer for `requires_action` (3-D Secure, hosted page), else `null`. */
  readonly actionUrl: string | null;
}

/**
 * The port real providers plug into (the sandbox HTTP provider is one implementation, `InMemoryPaymentProvider`
 * another). Contract:
 * - `createPayment` with a key it has seen before and the same parameters returns the same payment; it throws
 *   `ProviderDeclined` ONLY for a definitive refusal. Any other error (timeout, connection reset, 5xx) means the
 *   result is unknown: the payment may or may not exist.
 * - `getPaymentByReference` returns the payment created with that merchant reference, or `null` when the provider
 *   confirms there is none; it throws when it cannot tell.
 * - `cancel` asks the provider to cancel a not-yet-captured payment and returns its status afterwards.
 * @see docs/design.md §6; issue 5 "A PaymentProvider port".
 */
export interface PaymentProvider {
  /** The provider name; equals the `provider` of its webhook events (e.g. `stripe`). */
  readonly name: string;
  createPayment(request: CreatePaymentRequest): Promise<ProviderPayment>;
  getPaymentByReference(merchantReference: string): Promise<ProviderPayment | null>;
  cancel(paymentId: string): Promise<ProviderPayment>;
}
