import { PaymentError } from './payment-error.js';

/**
 * `createOrder` was given an order id that an order of another principal, amount or currency already holds (a
 * repeat with the same principal and money is answered with that order instead). Code `ORDER_ID_TAKEN`; HTTP 409.
 * The message names the id only, never the other order's owner or amount.
 */
export class OrderIdTaken extends PaymentError {
  readonly orderId: string;
  constructor(orderId: string) {
    super('ORDER_ID_TAKEN', `order id ${orderId} is taken by another order`);
    this.orderId = orderId;
  }
}
