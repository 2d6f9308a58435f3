import { PaymentError } from './payment-error.js';

/**
 * No order with this id belongs to this principal. The same error for "does not exist" and "belongs to someone
 * else", so ids of other tenants cannot be probed. Code `ORDER_NOT_FOUND`; HTTP 404.
 */
export class OrderNotFound extends PaymentError {
  readonly orderId: string;
  constructor(orderId: string) {
    super('ORDER_NOT_FOUND', `order ${orderId} not found`);
    this.orderId = orderId;
  }
}
