import { PaymentError } from './payment-error.js';

/**
 * Thrown by a `PaymentProvider` when the provider answered definitively that it will not create the payment
 * (card declined, invalid request). `openCheckout` turns it into a `failed` attempt, which frees the order.
 * Any OTHER error from `createPayment` (timeout, network, 5xx) means "we do not know" and makes the attempt
 * `unknown`. Code `PROVIDER_DECLINED`; HTTP 402. @see docs/design.md §6.
 */
export class ProviderDeclined extends PaymentError {
  readonly reason: string;
  constructor(reason: string) {
    super('PROVIDER_DECLINED', `provider declined the payment: ${reason}`);
    this.reason = reason;
  }
}
