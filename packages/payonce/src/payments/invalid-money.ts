import { PaymentError } from './payment-error.js';

/**
 * An amount is not a positive safe integer of minor units, or a currency is not three upper-case letters
 * (ISO 4217). Floats are never accepted. Code `INVALID_MONEY`; HTTP 400. @see docs/design.md §2 "Money and time".
 */
export class InvalidMoney extends PaymentError {
  constructor(reason: string) {
    super('INVALID_MONEY', `invalid money: ${reason}`);
  }
}
