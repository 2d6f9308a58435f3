import { PaymentError } from './payment-error.js';

/**
 * A provider event handed to `applyProviderEvent` cannot be processed: it has no receipt key (a read-only query),
 * an unknown status, or neither a payment id nor a merchant reference. Nothing is recorded. Code
 * `INVALID_PAYMENT_EVENT`; HTTP 400.
 */
export class InvalidPaymentEvent extends PaymentError {
  constructor(reason: string) {
    super('INVALID_PAYMENT_EVENT', `invalid payment event: ${reason}`);
  }
}
